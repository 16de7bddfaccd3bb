#!/usr/bin/env bash
# Robustness sweep: every bundled sample and shared trace under every preset and a list of
# knob variants (policies, indexing, tiny queues, odd latencies, thread counts, windows),
# each run to its end. A run may end in a clear configuration error (exit status 2 or 3:
# counted, first lines listed) but never in a deadlock (the watchdog, status 1), a crash or
# a timeout. Not part of the test run (about 5,000 runs, 15 min on the 2-core host); it
# found session 54's two causes of deadlock and a refused preset (bench/SESSIONS.md).
#
#   bench/sweep.sh [BIN]          # exact mode
#   X="--sync_window=8 --threads=2" bench/sweep.sh [BIN]   # the same, windowed
#   PRESETS="rtx3070 gtx480" bench/sweep.sh                 # fewer presets
#
# Exit status: 0 when no run failed other than by a configuration error, else 1.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/lockstep}
shared=${LOCKSTEP_SHARED:-../shared}
presets=${PRESETS:-rtx3070 gtx480 titanx qv100 h100 a100 p100 rtx3080ti}
traces="samples/vecadd_sm80 $(ls -d samples/synth/*)"
if [ -d "$shared/traces" ]; then
    for t in "$shared"/traces/accelsim/* "$shared"/traces/macsim/*; do
        # a trace the simulator does not run at all (a MacSim CPU trace) is left out
        [ -d "$t" ] && "$bin" run "$t" --max_cycles=1 >/dev/null 2>&1 && traces="$traces $t"
    done
else
    echo "sweep: $shared/traces missing: bundled samples only" >&2
fi
variants=(
    "" "--dram_scheduler=fcfs" "--dram_dual_bus=1" "--warp_scheduler=gto"
    "--warp_scheduler=two_level" "--partition_indexing=consecutive" "--partition_indexing=xor"
    "--partition_indexing=random" "--dram_bank_indexing=xor --dram_bankgroup_indexing=higher"
    "--icnt_arbiter=fifo" "--icnt_subnets=1" "--occupancy_mode=cuda"
    "--dram_separate_write_queue=1 --dram_write_queue=2 --dram_write_high=2 --dram_write_low=1"
    "--dram_return_queue=2 --q_l2_to_dram=2 --q_dram_to_l2=2" "--dram_sched_queue=1"
    "--icnt_in_buffer=2 --icnt_out_buffer=2" "--icnt_flit_size=8 --icnt_in_buffer=5"
    "--l1d_mshr_entries=2 --l1d_mshr_merge=1" "--l1d_miss_queue=1"
    "--l2_mshr_entries=2 --l2_mshr_merge=1" "--l2_miss_queue=2" "--q_icnt_to_l2=1 --q_l2_to_icnt=1"
    "--ldst_response_buffer=1" "--icnt_latency=50" "--kernel_launch_latency=0"
    "--inst_fetch_throughput=1 --pipe_oc_cycles=0" "--n_sub_partitions=1" "--l2_enabled=0"
    "--l1d_enabled=0" "--concurrent_kernels=1 --max_concurrent_kernels=2" "--max_cycles=777"
    "--max_insts=3000" "--fast_forward=0 --dram_defer=0 --chan_sleep=0"
)
err=$(mktemp)
trap 'rm -f "$err"' EXIT
n=0 bad=0 cfg=0
for p in $presets; do
    for t in $traces; do
        for v in "${variants[@]}"; do
            n=$((n + 1))
            # shellcheck disable=SC2086 # the variants and X are lists of arguments
            timeout 300 "$bin" run "$t" --preset="$p" $v ${X:-} >/dev/null 2>"$err"
            rc=$?
            [ $rc = 0 ] && continue
            msg=$(grep -v '^#' "$err" | tail -1 | cut -c1-160)
            if [ $rc = 2 ] || [ $rc = 3 ]; then
                cfg=$((cfg + 1))
                [ $cfg -le 5 ] && echo "config error: $p $t $v: $msg"
            else
                bad=$((bad + 1))
                echo "FAIL (status $rc): $p $t $v ${X:-}: $msg"
            fi
        done
    done
done
echo "sweep: $n runs, $bad failed, $cfg refused with a configuration error"
[ $bad = 0 ]
