#!/usr/bin/env bash
# Simulation rate of the timing model: `lockstep run` on every shared Accel-Sim trace (with
# its reference config, launch latency 0) and on every bundled synth sample, with 1 and 2
# threads (more with THREADS="1 2 4 8 16"). Reports best-of-N wall time, warp instructions
# and simulated core cycles per second, and peak RSS.
# Usage: bench/sim.sh [REPEATS]        (not part of the test run)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
threads=${THREADS:-1 2}
bin=build/lockstep
shared=${LOCKSTEP_SHARED:-../shared}
[ -x "$bin" ] || make -s build/lockstep
out=$(mktemp)
trap 'rm -f "$out"' EXIT

run_one() { # label threads args...
    local label=$1 t=$2 best="" rss=0 s r
    shift 2
    for _ in $(seq "$reps"); do
        /usr/bin/time -f "%e %M" -o "$out.time" "$bin" run --threads="$t" "$@" >"$out" 2>/dev/null
        read -r s r <"$out.time"
        if [ -z "$best" ] || awk -v a="$s" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$s; fi
        [ "$r" -gt "$rss" ] && rss=$r
    done
    local wi cyc
    wi=$(awk -F' = ' '/^total.gpgpu_n_tot_w_icount/ {print $2}' "$out")
    cyc=$(awk -F' = ' '/^total.gpu_tot_sim_cycle/ {print $2}' "$out")
    awk -v l="$label" -v t="$t" -v s="$best" -v w="$wi" -v c="$cyc" -v m="$rss" 'BEGIN {
        if (s < 0.001) s = 0.001
        printf "| %s | %d | %d | %d | %.3f | %.0f | %.0f | %d |\n", l, t, w, c, s, w / s, c / s, m }'
}

echo "| run | threads | warp insts | cycles | best s | warp-inst/s | cycles/s | peak RSS KB |"
echo "|---|---|---|---|---|---|---|---|"
for spec in vectoradd_sm80_v5:SM86_RTX3070 ffma_sm90_v5:SM86_RTX3070 \
            vectoradd100_sm61_v4:SM6_TITANX matrixmul32_sm61_v4:SM6_TITANX \
            vecadd_sm61_v3:SM6_TITANX; do
    tr=${spec%%:*} cfg=$shared/reference/accelsim-configs/${spec#*:}
    [ -d "$shared/traces/accelsim/$tr" ] || continue
    for t in $threads; do
        run_one "$tr" "$t" --config="$cfg/gpgpusim.config" --config="$cfg/trace.config" \
            --kernel_launch_latency=0 "$shared/traces/accelsim/$tr"
    done
done
for d in samples/synth/*/; do
    for t in $threads; do
        run_one "synth $(basename "$d")" "$t" "$d"
    done
done
