/* Warp scheduler policies: the order each plug-in gives a hand-made set of warps. */
#include "sm/sm.h"
#include "test.h"

static void order(const char *name, uint32_t last, const uint32_t *cand,
                  const sm_warp_view *v, uint32_t n, uint32_t active, uint32_t *out)
{
    const sm_sched_ops *ops = sm_sched_find(name);
    CHECK(ops != NULL);
    sm_sched_state st = {last, 0};
    uint32_t keep[16];
    if (ops)
        ops->order(&st, cand, v, n, active, keep, 1, out);
}

TEST(sm_sched_registry_names)
{
    CHECK(sm_sched_find("lrr") && sm_sched_find("gto") && sm_sched_find("two_level"));
    CHECK(sm_sched_find("nope") == NULL);
    for (int i = 0; sm_sched_registry[i]; i++)
        CHECK(sm_sched_registry[i]->help && sm_sched_registry[i]->help[0]);
}

TEST(sm_sched_lrr_starts_after_last)
{
    uint32_t cand[4] = {1, 5, 9, 13}, out[4];
    sm_warp_view v[4] = {{0, 0}, {1, 0}, {2, 0}, {3, 0}};
    order("lrr", 5, cand, v, 4, 0, out);
    CHECK_EQ(out[0], 9);
    CHECK_EQ(out[1], 13);
    CHECK_EQ(out[2], 1);
    CHECK_EQ(out[3], 5);
    order("lrr", 13, cand, v, 4, 0, out); /* wraps */
    CHECK_EQ(out[0], 1);
    order("lrr", UINT32_MAX, cand, v, 4, 0, out); /* nothing issued yet */
    CHECK_EQ(out[0], 1);
}

TEST(sm_sched_gto_greedy_then_oldest)
{
    uint32_t cand[4] = {1, 5, 9, 13}, out[4];
    sm_warp_view v[4] = {{30, 0}, {10, 0}, {20, 0}, {5, 0}}; /* ages: 13 oldest, then 5 */
    order("gto", 9, cand, v, 4, 0, out);
    CHECK_EQ(out[0], 9);  /* greedy: the last issuer first */
    CHECK_EQ(out[1], 13); /* then oldest first */
    CHECK_EQ(out[2], 5);
    CHECK_EQ(out[3], 1);
}

/* A call with fresh = 0 reuses what the previous call kept for the same candidates: the
 * order equals a fresh call's for every last issuer. */
TEST(sm_sched_kept_order_equals_fresh)
{
    uint32_t cand[5] = {1, 5, 9, 13, 17}, keep[5], fkeep[5], out[5], fout[5];
    sm_warp_view v[5] = {{30, 0}, {10, 1}, {20, 0}, {5, 0}, {40, 1}};
    uint32_t lasts[] = {9, 17, 1, 13, 5, 2, UINT32_MAX};
    for (int p = 0; sm_sched_registry[p]; p++) {
        const sm_sched_ops *ops = sm_sched_registry[p];
        sm_sched_state st = {1, 0};
        ops->order(&st, cand, v, 5, 2, keep, 1, out);
        for (unsigned i = 0; i < sizeof lasts / sizeof lasts[0]; i++) {
            st.last = lasts[i];
            ops->order(&st, cand, v, 5, 2, keep, 0, out);
            ops->order(&st, cand, v, 5, 2, fkeep, 1, fout);
            for (int j = 0; j < 5; j++)
                CHECK_EQ(out[j], fout[j]);
        }
    }
}

TEST(sm_sched_two_level_demotes_memory_waiters)
{
    uint32_t cand[4] = {1, 5, 9, 13}, out[4];
    /* warp 5 waits on memory; active set of 2 = the two oldest others: 13 and 9 */
    sm_warp_view v[4] = {{30, 0}, {10, 1}, {20, 0}, {5, 0}};
    order("two_level", 9, cand, v, 4, 2, out);
    CHECK_EQ(out[0], 13); /* round-robin after 9 within {9, 13} */
    CHECK_EQ(out[1], 9);
    CHECK_EQ(out[2], 5);  /* the rest, oldest first */
    CHECK_EQ(out[3], 1);
}
