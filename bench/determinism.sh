#!/usr/bin/env bash
# Determinism at many threads, for a machine with more cores than the test run assumes (the
# tests check 1, 2 and 4 threads): every bundled sample and four larger workloads, in the
# exact mode and windowed at W = 16 and W = 4, on the default GPU and the H100 preset, at 2, 4,
# 8, ... threads up to the core count with the team forced on from the first edge and its
# adaptation off, and at the core count as a user runs it; each run's --stats-json must be
# byte-identical to one thread's. Not part of the test run (16 cores: about 90 s).
# Usage: bench/determinism.sh            (THREADS="2 4 8 16" to choose the counts)
# Prints each difference or failed run, then "determinism: N runs, N differing, N failed";
# exit status 1 on any.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
b=build/lockstep
[ -x "$b" ] || make -s "$b" || exit 1
cores=$(nproc)
threads=${THREADS:-}
if [ -z "$threads" ]; then
    for ((t = 2; t <= cores; t *= 2)); do threads+="$t "; done
    [[ " $threads" == *" $cores "* ]] || threads+="$cores"
fi
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
for w in vectoradd reduce sgemm-tiled; do
    n=1M
    [ $w = sgemm-tiled ] && n=256
    "$b" synth $w --n=$n --out "$d/large-$w" >/dev/null &&
        "$b" trace convert --to native "$d/large-$w" --out "$d/large-$w.n" >/dev/null || exit 1
done
"$b" synth gather --n=256K --out "$d/large-gather" >/dev/null || exit 1
forced="--team_start_ms=0 --team_min_edge_us=0 --team_min_left_ms=0 --team_adapt=0"
runs=0 differ=0 failed=0
one() { # label out args...: a run, counted; 1 if it failed
    local label=$1 out=$2
    shift 2
    if ! "$b" run "$@" --stats-json "$out" >/dev/null 2>"$d/err"; then
        echo "FAILED $label: $(head -1 "$d/err")"
        failed=$((failed + 1))
        return 1
    fi
    runs=$((runs + 1))
}
large=("$d"/large-{vectoradd,reduce,sgemm-tiled}.n "$d/large-gather")
for tr in samples/synth/* samples/vecadd_sm80 "${large[@]}"; do
    name=$(basename "$tr")
    for gpu in "" --preset=h100; do
        for W in 0 16 4; do
            label="$name ${gpu:-default GPU} --sync_window=$W"
            args=("$tr" $gpu --sync_window=$W)
            one "$label --threads=1" "$d/base.json" "${args[@]}" --threads=1 || continue
            for t in $threads adapt; do
                extra=$forced
                [ $t = adapt ] && { t=$cores extra=""; }
                one "$label --threads=$t $extra" "$d/x.json" "${args[@]}" --threads=$t $extra ||
                    continue
                cmp -s "$d/base.json" "$d/x.json" ||
                    { echo "DIFFERS $label --threads=$t $extra"; differ=$((differ + 1)); }
            done
        done
    done
done
echo "determinism: $runs runs, $differ differing, $failed failed"
[ $differ = 0 ] && [ $failed = 0 ]
