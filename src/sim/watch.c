/* sim watch: the hang diagnosis and the progress line. */
#include "sim_int.h"
#include <time.h>

double sim_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What every busy unit holds: SMs (warps and what each waits for), interconnect buffers,
 * memory partitions (queues, MSHRs, DRAM). At most 8 SMs in full, then a count. */
void sim_diagnose(sim *g, FILE *f)
{
    sim_sync_channels(g);
    sim_sync_sms(g);
    fprintf(f, "lockstep: deadlock diagnosis at core cycle %llu (no unit made progress for "
               "%lld cycles)\n",
            (unsigned long long)g->cycle, (long long)g->k.watchdog_cycles);
    for (size_t i = 0; i < g->nrk; i++)
        if (g->rk[i].state == RK_RUN)
            fprintf(f, "kernel %u %s: %llu CTAs issued, %llu done%s\n", g->rk[i].kk.uid,
                    g->rk[i].kk.h->name, (unsigned long long)g->rk[i].issued,
                    (unsigned long long)g->done_by_uid[g->rk[i].kk.uid],
                    g->rk[i].eof ? ", all issued" : "");
    uint32_t shown = 0, busy = 0;
    for (uint32_t i = 0; i < g->n_sm; i++) {
        if (!sm_active(g->sm[i]))
            continue;
        busy++;
        if (shown++ < 8)
            sm_diagnose(g->sm[i], f, g->cycle);
    }
    if (busy > 8)
        fprintf(f, "... and %u more busy SMs\n", busy - 8);
    fprintf(f, "interconnect: %s\n", icnt_busy(g->net) ? "packets in flight" : "empty");
    for (uint32_t s = 0; s < g->n_sm; s++) {
        uint32_t in = icnt_in_flits(g->net, ICNT_REQ, s);
        if (in)
            fprintf(f, "  request input of sm %u: %u flits\n", s, in);
    }
    for (uint32_t i = 0; i < g->n_sub_total; i++) {
        uint32_t in = icnt_in_flits(g->net, ICNT_REP, i), out = icnt_out_flits(g->net, ICNT_REQ, i);
        if (in || out)
            fprintf(f, "  sub-partition %u: %u reply flits waiting, %u request flits delivered\n", i,
                    in, out);
    }
    for (uint32_t c = 0; c < g->n_chan; c++)
        if (mem_part_busy(g->part[c]))
            mem_part_diagnose(g->part[c], f);
    if (g->windowed)
        sim_window_diagnose(g, f);
}

/* kernel k/n, cycles, warp instructions per second, ETA (from the CTAs of the launched
 * kernels: the trace gives CTA counts up front, instruction counts only once read). */
void sim_progress(sim *g, int final)
{
    double now = sim_wall();
    if (!final && now - g->last_print < 0.5)
        return;
    g->last_print = now;
    uint64_t wi = 0;
    for (uint32_t i = 0; i < g->n_sm; i++)
        wi += sm_warp_insts(g->sm[i]);
    double el = now - g->t0, rate = el > 0 ? (double)wi / el : 0;
    double frac = g->ctas_total_est ? (double)g->ctas_done_all / (double)g->ctas_total_est : 0;
    char eta[32] = "?";
    if (frac > 0.01 && frac < 1)
        snprintf(eta, sizeof eta, "%.0fs", el * (1 - frac) / frac);
    fprintf(g->progress, "\r[lockstep] kernel %zu/%zu  cycle %llu  %.3g warp-inst/s  ETA %s   %s",
            g->nrk, g->list->nkernels, (unsigned long long)g->cycle, rate,
            final ? "done" : eta, final ? "\n" : "");
    fflush(g->progress);
}
