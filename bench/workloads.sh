#!/usr/bin/env bash
# Workload tools: `lockstep synth` generation rate per workload at SCALE times its default
# size (plain text and --xz), `trace check` on the result, and the MacSim reader and converter
# on ../shared/traces/macsim. Best-of-REPEATS wall time, warp instructions per second, MB/s of
# trace text and peak RSS.
# Usage: bench/workloads.sh [REPEATS] [SCALE]   (not part of the test run)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
scale=${2:-8}
bin=build/lockstep
shared=${LOCKSTEP_SHARED:-../shared}
[ -x "$bin" ] || make -s build/lockstep
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs "$@" REPEATS times; prints "best_seconds peak_rss_kb" and leaves the last stdout in $work/out.
timeit() {
    local best="" rss=0
    for _ in $(seq "$reps"); do
        local t0 t1 dt
        t0=$(date +%s.%N)
        /usr/bin/time -f '%M' -o "$work/rss" "$@" >"$work/out"
        t1=$(date +%s.%N)
        dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
        rss=$(tail -1 "$work/rss")
        if [ -z "$best" ] || awk -v d="$dt" -v b="$best" 'BEGIN { exit !(d < b) }'; then best=$dt; fi
    done
    echo "$best $rss"
}

# The size parameter of each workload, scaled so the work grows about SCALE times (sgemm's
# work grows with n^3, so n grows with the cube root, rounded to the 16-element tile).
scaled() {
    case $1 in
    vectoradd | saxpy-stride | gather | branchy | multi) echo "--n=$((16384 * scale))" ;;
    reduce) echo "--n=$((32768 * scale))" ;;
    histogram) echo "--n=$((65536 * scale)) --grid=$((32 * scale))" ;;
    sgemm-tiled) awk -v s="$scale" 'BEGIN { n = int(64 * s ^ (1 / 3) / 16 + 0.5) * 16; print "--n=" n }' ;;
    stencil2d) echo "--nx=$((256 * scale))" ;;
    pchase) echo "--iters=$((4096 * scale))" ;;
    hmma) echo "--m=$((256 * scale))" ;;
    esac
}

row() { # label "seconds rss" warp_insts text_bytes
    awk -v l="$1" -v t="${2% *}" -v r="${2#* }" -v w="$3" -v b="$4" \
        'BEGIN { printf "%-34s %11d %8.1f %8.3f %11.0f %7.1f %8s\n", l, w, b / 1e6, t, w / t, b / 1e6 / t, r }'
}

printf '%-34s %11s %8s %8s %11s %7s %8s\n' run "warp insts" "text MB" "best s" "warp-inst/s" "MB/s" "RSS KB"
for w in $("$bin" synth --list | awk 'NR > 1 { print $1 }'); do
    # shellcheck disable=SC2046
    tm=$(timeit "$bin" synth "$w" $(scaled "$w") --out "$work/$w")
    wi=$(sed -n 's/.* \([0-9]*\) warp instructions.*/\1/p' "$work/out")
    by=$(sed -n 's/.* \([0-9]*\) bytes of trace text.*/\1/p' "$work/out")
    row "synth $w x$scale" "$tm" "$wi" "$by"
    # shellcheck disable=SC2046
    tm=$(timeit "$bin" synth "$w" $(scaled "$w") --xz --out "$work/$w.xz")
    row "synth $w x$scale --xz" "$tm" "$wi" "$by"
    tm=$(timeit "$bin" trace check "$work/$w.xz")
    row "trace check $w x$scale (.xz)" "$tm" "$wi" "$by"
    rm -rf "$work/$w" "$work/$w.xz"
done
if [ -d "$shared/traces/macsim" ]; then
    for t in "$shared"/traces/macsim/*/; do
        name=$(basename "$t")
        tm=$(timeit "$bin" trace check "$t")
        wi=$(sed -n 's/.* \([0-9]*\) \(warp \)\{0,1\}instructions.*/\1/p' "$work/out" | head -1)
        row "trace check macsim/$name" "$tm" "${wi:-0}" 0
        case $name in x86_*) continue ;; esac
        tm=$(timeit "$bin" trace convert --to accelsim "$t" --out "$work/conv-$name")
        row "trace convert macsim/$name" "$tm" "${wi:-0}" 0
    done
fi
