#!/usr/bin/env bash
# Peak memory against trace length (issue 5, "Memory"): each workload at a base length and at
# LONG times it (default 10), as text and as a native trace, one thread; prints peak RSS
# (`/usr/bin/time -f %M`), its growth and the wall time. A run reads its CTAs as they are
# issued and drops each at its end, so only what is resident (and fixed-size buffers: a
# native block of up to 1 MiB decoded, the memcpy prefill's batch of up to 2 MB) should
# count. The base lengths are past those buffers' bounds already (memcpys of 10 MB or more,
# several native blocks); below them a longer run also fills them further.
# Each is measured twice: with 4 KB pages (--host_hugepages=0), where RSS follows what is
# touched to 4 KB, and as a run is by default, on huge pages, where RSS moves in 2 MB steps
# (one step is 12% of a 16 MB run, so there a single extra page of a deeper queue shows as
# growth past 10%).
# Usage: bench/memory.sh [LONG]      (not part of the test run; takes 15-25 minutes and about
# 1 GB of temporary disk for the longest text trace)
set -euo pipefail
cd "$(dirname "$0")/.."
long=${1:-10}
bin=build/lockstep
[ -x "$bin" ] || make -s build/lockstep
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

rss_wall() { # trace dir [knob...] -> "KB s"
    /usr/bin/time -f "%M %e" "$bin" run "$@" 2>&1 >/dev/null | tail -1
}

row() { # label workload base-param base-value
    local label=$1 w=$2 p=$3 v=$4 form
    "$bin" synth "$w" "--$p=$v" --out "$work/a" >/dev/null
    "$bin" synth "$w" "--$p=$((v * long))" --out "$work/b" >/dev/null
    "$bin" trace convert --to native "$work/a" --out "$work/a-n" >/dev/null
    "$bin" trace convert --to native "$work/b" --out "$work/b-n" >/dev/null
    for form in text native; do
        local sa sb
        if [ $form = text ]; then sa="$work/a"; sb="$work/b"; else sa="$work/a-n"; sb="$work/b-n"; fi
        read -r ka ta <<<"$(rss_wall "$sa")"
        read -r kb tb <<<"$(rss_wall "$sb")"
        read -r pa _ <<<"$(rss_wall "$sa" --host_hugepages=0)"
        read -r pb _ <<<"$(rss_wall "$sb" --host_hugepages=0)"
        awk -v l="$label" -v f="$form" -v ka="$ka" -v kb="$kb" -v pa="$pa" -v pb="$pb" \
            -v ta="$ta" -v tb="$tb" \
            'BEGIN { printf "| %s | %s | %.1f / %.1f | %+.1f%% | %.1f / %.1f | %+.1f%% | %.2f / %.2f |\n",
                     l, f, pa / 1024, pb / 1024, 100 * (pb - pa) / pa, ka / 1024, kb / 1024,
                     100 * (kb - ka) / ka, ta, tb }'
    done
    rm -rf "$work/a" "$work/b" "$work/a-n" "$work/b-n"
}

echo "| workload (base; x$long) | trace | peak RSS MB, base / x$long (4 KB pages) | growth | the same, huge pages (default) | growth | wall s, base / x$long |"
echo "|---|---|---:|---:|---:|---:|---:|"
row "vectoradd --n=2621440" vectoradd n 2621440
row "reduce --n=2621440" reduce n 2621440
# gather's requests queue at the sub-partitions' crossbar outputs up to the modelled buffers
# (512 flits), and those rings grow on demand: at 640K elements they are still filling (the
# deepest held 150-230 packets, against 300-512 from 2.6M on), so that row shows the warm-up,
# the 2.6M row the flat part (peak RSS at 2.6M and 6.4M: the same, 18,336 KB).
row "gather --n=655360 (64 MB table; queues still filling)" gather n 655360
row "gather --n=2621440 (64 MB table)" gather n 2621440
