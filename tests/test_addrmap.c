/* mem/addrmap: the GPGPU-Sim address mapping, checked against the worked bit positions of
 * FORMATS.md B.6 and the addr_dec_mask lines GPGPU-Sim prints for RTX3070. */
#include "test.h"

#include "knob/knob.h"
#include "mem/addrmap.h"

#define MAP_RTX3070 "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS"
#define MAP_QV100 "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCB.CCCSSSSS"

/* A mask with bits lo..hi set. */
static uint64_t bits(int lo, int hi)
{
    uint64_t m = 0;
    for (int b = lo; b <= hi; b++)
        m |= (uint64_t)1 << b;
    return m;
}

TEST(addrmap_rtx3070_masks)
{
    mem_addrmap m;
    base_err e = {0};
    CHECK_EQ(mem_addrmap_parse(&m, MAP_RTX3070, &e), 0);
    CHECK_EQ(m.chip_start, 8);
    uint64_t mk[5];
    mem_addrmap_masks(&m, 16, mk);
    /* the addr_dec_mask lines of an RTX3070 run (FORMATS.md B.6, shared run logs) */
    CHECK_EQ(mk[4], 0xf00);        /* channel 8-11 */
    CHECK_EQ(mk[1], 0x70080);      /* bank 7, 16-18 */
    CHECK_EQ(mk[0], 0xfff80000ull); /* row 19-31 */
    CHECK_EQ(mk[2], 0xf07f);       /* column 0-6, 12-15 */
    CHECK_EQ(mk[3], 0x1f);         /* burst 0-4 */
}

TEST(addrmap_qv100_masks)
{
    mem_addrmap m;
    base_err e = {0};
    CHECK_EQ(mem_addrmap_parse(&m, MAP_QV100, &e), 0);
    uint64_t mk[5];
    mem_addrmap_masks(&m, 32, mk);
    CHECK_EQ(mk[4], bits(8, 12));
    CHECK_EQ(mk[2], bits(0, 7) | bits(14, 16));
    CHECK_EQ(mk[1], bits(13, 13) | bits(17, 19));
    CHECK_EQ(mk[0], bits(20, 32));
}

TEST(addrmap_decode_power_of_two)
{
    mem_addrmap m;
    base_err e = {0};
    CHECK_EQ(mem_addrmap_parse(&m, MAP_RTX3070, &e), 0);
    mem_addr a;
    /* channel 5, bank bits 7 and 16 set (bank 0b011 = 3), row 2, column bits 12 and 0..6 */
    uint64_t addr = (5ull << 8) | (1ull << 7) | (1ull << 16) | (2ull << 19) | (1ull << 12) | 0x7f;
    mem_addrmap_decode(&m, 16, 2, addr, &a);
    CHECK_EQ(a.channel, 5);
    CHECK_EQ(a.bank, 3);
    CHECK_EQ(a.row, 2);
    CHECK_EQ(a.col, 0x7f | (1 << 7));
    CHECK_EQ(a.burst, 0x1f);
    CHECK_EQ(a.sub_partition, 5 * 2 + 1);
    /* consecutive 256-byte chunks walk the channels */
    mem_addrmap_decode(&m, 16, 2, 0x100, &a);
    CHECK_EQ(a.channel, 1);
    mem_addrmap_decode(&m, 16, 2, 0x1000, &a);
    CHECK_EQ(a.channel, 0);
    CHECK_EQ(a.col, 1 << 7);
}

TEST(addrmap_titanx_non_power_of_two)
{
    mem_addrmap m;
    base_err e = {0};
    CHECK_EQ(mem_addrmap_parse(&m, MAP_RTX3070, &e), 0); /* TITANX uses the same string */
    mem_addr a;
    /* channel = (addr >> 8) mod 12, then column 0-6 and 8-11, bank 7 and 12-14, row 15-27
     * of the folded address ((addr >> 8) / 12) << 8 | (addr & 0xff) */
    for (uint64_t chunk = 0; chunk < 64; chunk++) {
        mem_addrmap_decode(&m, 12, 2, chunk << 8, &a);
        CHECK_EQ(a.channel, chunk % 12);
    }
    uint64_t folded = (1ull << 7) | (1ull << 8) | (1ull << 12) | (1ull << 15) | 0x1f;
    uint64_t addr = (((folded >> 8) * 12 + 7) << 8) | (folded & 0xff);
    mem_addrmap_decode(&m, 12, 2, addr, &a);
    CHECK_EQ(a.channel, 7);
    CHECK_EQ(a.bank, 3);           /* bits 7 and 12 */
    CHECK_EQ(a.col, 0x1f | 0x80);  /* bits 0-4 and 8 (packed as column bit 7) */
    CHECK_EQ(a.row, 1);            /* bit 15 */
    CHECK_EQ(a.sub_partition, 7 * 2 + 1);
}

TEST(addrmap_channel_bits_in_map)
{
    mem_addrmap m;
    base_err e = {0};
    /* no dramid@: D bits name the channel directly (bits 8-9 here) */
    CHECK_EQ(mem_addrmap_parse(&m, "00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCDD.BCCSSSSS", &e), 0);
    CHECK_EQ(m.chip_start, -1);
    mem_addr a;
    mem_addrmap_decode(&m, 4, 1, 3ull << 8, &a);
    CHECK_EQ(a.channel, 3);
    CHECK_EQ(a.sub_partition, 3);
}

TEST(addrmap_errors)
{
    mem_addrmap m;
    base_err e = {0};
    CHECK_EQ(mem_addrmap_parse(&m, "dramid@8;0000RRRR", &e), -1);
    CHECK_HAS(e.msg, "expected exactly 64");
    base_err_clear(&e);
    CHECK_EQ(mem_addrmap_parse(&m, "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSX", &e), -1);
    CHECK_HAS(e.msg, "bad character 'X'");
    base_err_clear(&e);
    CHECK_EQ(mem_addrmap_parse(&m, "dramid@x;00000000", &e), -1);
    CHECK_HAS(e.msg, "dramid@");
    base_err_clear(&e);
    CHECK_EQ(mem_addrmap_parse(&m, "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCDSSSSS", &e), -1);
    CHECK_HAS(e.msg, "not allowed together with dramid@");
    base_err_clear(&e);
    CHECK_EQ(mem_addrmap_parse(&m, "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.BCCSSSSS0", &e), -1);
    CHECK_HAS(e.msg, "more than 64");
}

TEST(addrmap_knob_check)
{
    knob_cfg c;
    knob_init(&c);
    base_err e = {0};
    CHECK_EQ(knob_set(&c, "dram_addr_map", "dramid@8;0000", "test:1", &e), -1);
    CHECK_HAS(e.msg, "test:1");
    CHECK_HAS(e.msg, "dram_addr_map");
    CHECK_HAS(e.msg, "expected exactly 64");
    base_err_clear(&e);
    CHECK_EQ(knob_set(&c, "dram_addr_map", MAP_QV100, "test:2", &e), 0);
    knob_free(&c);
}

/* A bound map decodes exactly as an unbound one, for its own channel count and another, and
 * mem_addrmap_bank_row gives decode's bank and row (16 channels and 12). */
TEST(addrmap_bind_keeps_every_decode)
{
    mem_addrmap m, b;
    base_err e = {0};
    CHECK_EQ(mem_addrmap_parse(&m, MAP_RTX3070, &e), 0);
    b = m;
    mem_addrmap_bind(&b, 16);
    int bad = 0;
    uint64_t a = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 5000; i++) {
        a = a * 6364136223846793005ull + 1;
        uint64_t addr = a >> 24;
        for (uint32_t n = 12; n <= 16; n += 4) {
            mem_addr x, y;
            mem_addrmap_decode(&m, n, 2, addr, &x);
            mem_addrmap_decode(&b, n, 2, addr, &y);
            bad += x.channel != y.channel || x.bank != y.bank || x.row != y.row ||
                   x.col != y.col || x.burst != y.burst || x.sub_partition != y.sub_partition;
            uint32_t bank;
            uint64_t row;
            mem_addrmap_bank_row(&b, n, addr, &bank, &row); /* the DRAM's shortcut */
            bad += bank != x.bank || row != x.row;
        }
    }
    CHECK_EQ(bad, 0);
}
