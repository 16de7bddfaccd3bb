#!/usr/bin/env bash
# Trace reader throughput: `lockstep trace check` on each shared Accel-Sim trace and on a
# large synthetic trace made by repeating the CTAs of vecadd_sm61_v3 (plain and .xz).
# Reports best-of-N wall time, MB/s of trace text, warp instructions per second and peak RSS.
# Usage: bench/trace_parse.sh [REPEATS] [SCALE]   (not part of the test run)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
scale=${2:-40}
bin=build/lockstep
shared=${LOCKSTEP_SHARED:-../shared}
[ -x "$bin" ] || make -s build/lockstep
[ -d "$shared/traces/accelsim" ] || { echo "bench: $shared/traces/accelsim not found"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Repeats every CTA of a kernel `scale` times and scales the grid to match.
make_big() {
    local src=$1/kernel-1.traceg dst=$2
    mkdir -p "$dst"
    printf 'kernel-1.traceg\n' >"$dst/kernelslist.g"
    awk -v k="$scale" '
        /^-grid dim = / { split($0, a, /[(),]/); printf "-grid dim = (%d,%s,%s)\n", a[2]*k, a[3], a[4]; next }
        /^#BEGIN_TB/ { intb = 1 }
        !intb { print; next }
        { body = body $0 "\n" }
        END { for (i = 0; i < k; i++) printf "%s", body }
    ' "$src" >"$dst/kernel-1.traceg"
    mkdir -p "$dst.xz"
    printf 'kernel-1.traceg.xz\n' >"$dst.xz/kernelslist.g"
    xz -1 -T1 -c "$dst/kernel-1.traceg" >"$dst.xz/kernel-1.traceg.xz"
}

measure() { # dir label
    local dir=$1 label=$2 best="" out rss=0 bytes winsts
    # MB/s is of trace text: compressed kernels count with their decompressed size
    bytes=0
    for f in "$dir"/kernel-*.traceg*; do
        case $f in
        *.xz) bytes=$((bytes + $(xz -dc "$f" | wc -c))) ;;
        *) bytes=$((bytes + $(wc -c <"$f"))) ;;
        esac
    done
    for _ in $(seq "$reps"); do
        local t0 t1
        t0=$(date +%s.%N)
        if [ -x /usr/bin/time ]; then
            out=$(/usr/bin/time -f '%M' "$bin" trace check "$dir" 2>"$work/rss")
            rss=$(tail -1 "$work/rss")
        else
            out=$("$bin" trace check "$dir")
        fi
        t1=$(date +%s.%N)
        local dt
        dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
        if [ -z "$best" ] || awk -v d="$dt" -v b="$best" 'BEGIN { exit !(d < b) }'; then best=$dt; fi
    done
    winsts=$(echo "$out" | sed -n 's/.* \([0-9]*\) warp instructions.*/\1/p')
    awk -v l="$label" -v by="$bytes" -v t="$best" -v w="${winsts:-0}" -v r="$rss" \
        'BEGIN { printf "%-28s %10.1f %9.3f %10.1f %12.0f %8s\n", l, by / 1e6, t, by / 1e6 / t, w / t, r }'
}

printf '%-28s %10s %9s %10s %12s %8s\n' trace "text MB" "best s" "MB/s" "warp-inst/s" "RSS KB"
for d in "$shared"/traces/accelsim/*/; do
    measure "$d" "$(basename "$d")"
done
make_big "$shared/traces/accelsim/vecadd_sm61_v3" "$work/big"
measure "$work/big" "vecadd_sm61_v3 x$scale"
measure "$work/big.xz" "vecadd_sm61_v3 x$scale (.xz)"
