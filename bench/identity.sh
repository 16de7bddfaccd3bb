#!/usr/bin/env bash
# Statistics identity across a change (issue 5: every optimisation keeps every statistic, bit
# for bit). Records the statistics of a fixed set of runs with one binary, then compares two
# such records file by file.
#
#   bench/identity.sh record BIN DIR     # ~170 runs, 10-20 s on the 2-core host
#   bench/identity.sh compare DIR_A DIR_B
#
# The set: every shared Accel-Sim trace with the configs its reference run used (and
# vectoradd100 also on the GTX1080 and QV100 configs), the MacSim GPU traces, every bundled
# sample, each at 1 and 2 threads; and seven synth samples under one knob variant each of
# the presets and the policy and DRAM knobs, plus the h100 preset at 4 threads. A run's
# record is its stdout without '#' lines and the threads knob's echo, then its exit status.
# Shared traces are skipped with a note when LOCKSTEP_SHARED (default ../shared) is missing.
# Not part of the test run: `make check` and the determinism tests cover thread counts; this
# covers a change's before and after, which no test can hold a golden copy of.
set -euo pipefail
cd "$(dirname "$0")/.."

record() {
    local bin=$1 out=$2 shared=${LOCKSTEP_SHARED:-../shared} n=0
    mkdir -p "$out"
    one() { # name, then the run's arguments
        local name=$1
        shift
        local rc=0
        "$bin" run "$@" >"$out/$name.raw" 2>"$out/$name.err" || rc=$?
        { grep -v '^#' "$out/$name.raw" | grep -v '^knob threads ' || :; } >"$out/$name.txt"
        echo "exit $rc" >>"$out/$name.txt"
        rm -f "$out/$name.raw"
        n=$((n + 1))
    }
    local cfg=$shared/reference/accelsim-configs tr=$shared/traces/accelsim t s v
    for t in 1 2; do
        if [ -d "$tr" ]; then
            one "va80-$t" "$tr/vectoradd_sm80_v5" --config="$cfg/SM86_RTX3070/gpgpusim.config" \
                --config="$cfg/SM86_RTX3070/trace.config" --threads=$t
            one "ffma-$t" "$tr/ffma_sm90_v5" --config="$cfg/SM86_RTX3070/gpgpusim.config" \
                --config="$cfg/SM86_RTX3070/trace.config" --threads=$t
            for s in vectoradd100_sm61_v4 matrixmul32_sm61_v4 vecadd_sm61_v3; do
                one "$s-$t" "$tr/$s" --config="$cfg/SM6_TITANX/gpgpusim.config" \
                    --config="$cfg/SM6_TITANX/trace.config" --threads=$t
            done
            one "gtx1080-$t" "$tr/vectoradd100_sm61_v4" \
                --config="$cfg/GTX1080_microgpusim_reconstructed/gpgpusim.config" --threads=$t
            one "qv100-$t" "$tr/vectoradd100_sm61_v4" --config="$cfg/SM7_QV100/gpgpusim.config" \
                --threads=$t
            for s in nvbit_vectormultadd_4096 ptx_vectoradd; do
                one "macsim-$s-$t" "$shared/traces/macsim/$s" --threads=$t
            done
        fi
        for s in samples/synth/*; do
            one "synth-$(basename "$s")-$t" "$s" --threads=$t
        done
        one "vecadd_sm80-$t" samples/vecadd_sm80 --threads=$t
    done
    [ -d "$tr" ] || echo "identity: $shared missing: shared traces skipped" >&2
    for s in gather reduce histogram multi sgemm-tiled pchase stencil2d; do
        for v in --preset=h100 --preset=titanx --preset=gtx480 --preset=a100 \
            --dram_dual_bus=1 --dram_scheduler=fcfs --fast_forward=0 --icnt_model=booksim \
            --icnt_arbiter=islip --warp_scheduler=lrr --warp_scheduler=two_level \
            --warp_scheduler=gto --l2_repl=fifo --dram_bank_indexing=xor \
            --dram_bankgroup_indexing=higher --dram_no_rw_turnaround=1 --dram_sched_queue=0; do
            one "knob-$s$v" "samples/synth/$s" "$v" --threads=1
        done
        one "knob-$s-h100-4" "samples/synth/$s" --preset=h100 --threads=4
    done
    echo "identity: $n runs recorded in $out" >&2
}

compare() {
    local a=$1 b=$2 f bad=0 n=0
    for f in "$a"/*.txt; do
        n=$((n + 1))
        if ! cmp -s "$f" "$b/$(basename "$f")"; then
            echo "DIFFERS: $(basename "$f" .txt)"
            bad=1
        fi
    done
    [ "$n" -gt 0 ] || { echo "identity: no records in $a" >&2; exit 2; }
    if grep -L '^exit 0$' "$a"/*.txt | grep -q .; then
        echo "identity: runs that failed in $a:" >&2
        grep -L '^exit 0$' "$a"/*.txt >&2
        bad=1
    fi
    echo "identity: $n records compared, $([ $bad = 0 ] && echo identical || echo DIFFERENT)"
    exit $bad
}

case "${1:-}" in
record) [ $# = 3 ] || { echo "usage: $0 record BIN DIR" >&2; exit 2; }; record "$2" "$3" ;;
compare) [ $# = 3 ] || { echo "usage: $0 compare DIR_A DIR_B" >&2; exit 2; }; compare "$2" "$3" ;;
*) echo "usage: $0 record BIN DIR | compare DIR_A DIR_B" >&2; exit 2 ;;
esac
