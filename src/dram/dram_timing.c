/* dram timing: the knob values, the derived delays and the rule table.
 *
 * Every fact here follows GPGPU-Sim's dram.cc / gpu-sim.cc (memory_config::init and the
 * countdown counters set by issue_row_command / issue_col_command). GPGPU-Sim keeps one
 * countdown counter per (command, scope) and sets it when a command issues; the counter
 * reaches 0 exactly D cycles later, so "counter == 0" is the same as "t - t0 >= D" on the
 * last issue time, which is what the table below states. Mapping of GPGPU-Sim's counters:
 *
 *   ACT -> ACT  same bank   tRC     RCc (bank)
 *   ACT -> ACT  any bank    tRRD    RRDc is channel-wide (also covers the same bank)
 *   ACT -> RD   same bank   tRCD    RCDc
 *   ACT -> WR   same bank   tRCDWR  RCDWRc = tRCD - (WL + 1): writes need less than tRCD
 *   ACT -> PRE  same bank   tRAS    RASc
 *   PRE -> ACT  same bank   tRP     RPc
 *   col -> col  any bank    tCCD    CCDc is channel-wide, set by RD and WR alike
 *   col -> col  same group  tCCDL   bkgrp CCDLc (the group includes the bank itself)
 *   RD  -> WR   any bank    tRTW    RTWc = CL + burst + 2 - WL
 *   WR  -> RD   any bank    tWTR    WTRc = WL + burst + CDLR
 *   RD  -> PRE  same bank   tRTP    RTPc = BL / data_command_freq_ratio (= burst)
 *   RD  -> PRE  same group  tRTPL   bkgrp RTPLc
 *   WR  -> PRE  same bank   tWTP    WTPc = WL + burst + WR
 *
 * Differences from the brief that was written before checking GPGPU-Sim: tCCD applies to
 * any bank (not only other groups; identical whenever tCCDL >= tCCD), tRRD applies to any
 * bank (tRC >= tRRD makes that moot for the same bank), and ACT -> WR uses tRCDWR.
 * Rows with a zero delay constrain nothing and are left out of the table. */
#include "dram.h"

#include <stddef.h>

static uint32_t clamp_u32(int64_t v) { return v < 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; }

void dram_timing_from_knobs(dram_timing *t, const knobs *k)
{
    t->nbk = clamp_u32(k->dram_banks);
    t->nbkgrp = clamp_u32(k->dram_bank_groups);
    if (t->nbkgrp == 0 || t->nbkgrp > t->nbk)
        t->nbkgrp = t->nbk ? t->nbk : 1;
    t->tCCD = clamp_u32(k->dram_tCCD);
    t->tCCDL = clamp_u32(k->dram_tCCDL);
    t->tRRD = clamp_u32(k->dram_tRRD);
    t->tRCD = clamp_u32(k->dram_tRCD);
    t->tRAS = clamp_u32(k->dram_tRAS);
    t->tRP = clamp_u32(k->dram_tRP);
    t->tRC = clamp_u32(k->dram_tRC);
    t->tCL = clamp_u32(k->dram_tCL);
    t->tWL = clamp_u32(k->dram_tWL);
    t->tCDLR = clamp_u32(k->dram_tCDLR);
    t->tWR = clamp_u32(k->dram_tWR);
    t->tRTPL = clamp_u32(k->dram_tRTPL);
    /* GPGPU-Sim divides as integers; a burst shorter than one command cycle still takes
     * the bus for one cycle here, so the data bus is never "free" during a transfer. */
    int64_t burst = k->dram_burst_length / (k->dram_data_cmd_ratio ? k->dram_data_cmd_ratio : 1);
    t->burst = burst < 1 ? 1 : (uint32_t)burst;
    int64_t cl = t->tCL, wl = t->tWL, b = t->burst;
    t->tRTW = k->dram_no_rw_turnaround ? 0 : clamp_u32(cl + b + 2 - wl);
    t->tWTR = k->dram_no_rw_turnaround ? 0 : clamp_u32(wl + b + t->tCDLR);
    t->tRCDWR = clamp_u32((int64_t)t->tRCD - (wl + 1));
    t->tWTP = clamp_u32(wl + b + t->tWR);
}

typedef struct rule_src {
    uint8_t first, then, scope;
    const char *name;
    size_t off; /* of the delay in dram_timing */
} rule_src;

#define RS(a, b, s, f) {DRAM_##a, DRAM_##b, DRAM_##s, #f, offsetof(dram_timing, f)}
static const rule_src rule_srcs[] = {
    RS(ACT, ACT, SAME_BANK, tRC),    RS(ACT, ACT, ANY_BANK, tRRD),
    RS(ACT, RD, SAME_BANK, tRCD),    RS(ACT, WR, SAME_BANK, tRCDWR),
    RS(ACT, PRE, SAME_BANK, tRAS),   RS(PRE, ACT, SAME_BANK, tRP),
    RS(RD, RD, ANY_BANK, tCCD),      RS(RD, WR, ANY_BANK, tCCD),
    RS(WR, RD, ANY_BANK, tCCD),      RS(WR, WR, ANY_BANK, tCCD),
    RS(RD, RD, SAME_GROUP, tCCDL),   RS(RD, WR, SAME_GROUP, tCCDL),
    RS(WR, RD, SAME_GROUP, tCCDL),   RS(WR, WR, SAME_GROUP, tCCDL),
    RS(RD, WR, ANY_BANK, tRTW),      RS(WR, RD, ANY_BANK, tWTR),
    RS(RD, PRE, SAME_BANK, burst),   RS(RD, PRE, SAME_GROUP, tRTPL),
    RS(WR, PRE, SAME_BANK, tWTP),
};
#undef RS

size_t dram_rules(const dram_timing *t, dram_rule *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof rule_srcs / sizeof rule_srcs[0] && n < max; i++) {
        const rule_src *s = &rule_srcs[i];
        uint32_t delay = *(const uint32_t *)((const char *)t + s->off);
        if (delay == 0)
            continue;
        /* the RD -> PRE same-bank delay is GPGPU-Sim's RTPc, set from the burst length */
        const char *name = s->off == offsetof(dram_timing, burst) ? "tRTP" : s->name;
        out[n++] = (dram_rule){s->first, s->then, s->scope, name, delay};
    }
    return n;
}
