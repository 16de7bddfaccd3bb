#!/usr/bin/env bash
# Native trace format (docs/NATIVE.md): size against .traceg.xz and read speed against text.
# For every shared Accel-Sim trace, every samples/synth/* sample and a few larger synthetic
# traces: converts to native, then reports
#   - bytes of the kernel files as .traceg.xz (the samples' own; `xz -6` of plain text),
#     as native, and the ratio;
#   - `lockstep trace check` wall time on the trace as stored and on the native copy (best of
#     REPEATS whole processes: start-up and statistics included);
#   - load time: trace_kernel_open + trace_next_cta over every kernel, in one process, best of
#     REPEATS, for the trace as stored, for its plain text, and for the native copy.
# Usage: bench/native.sh [REPEATS]     (not part of the test run; LOCKSTEP_SHARED=../shared)
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-5}
bin=build/lockstep
shared=${LOCKSTEP_SHARED:-../shared}
[ -x "$bin" ] && [ -f build/liblockstep.a ] || make -s build/lockstep
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The load timer: a small program against the library.
cat >"$work/load.c" <<'EOF'
#include <stdio.h>
#include <time.h>
#include "trace/trace.h"
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
int main(int argc, char **argv)
{
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        base_err e = {0};
        trace_list l;
        if (trace_list_open(argv[1], &l, &e))
            return fprintf(stderr, "%s\n", e.msg), 1;
        double t0 = now();
        trace_cta c = {0};
        for (size_t i = 0; i < l.ncmds; i++) {
            if (l.cmds[i].kind != TRACE_CMD_KERNEL)
                continue;
            trace_kernel *k = trace_kernel_open(l.cmds[i].path, &e);
            int rc = k ? 1 : -1;
            while (rc == 1)
                rc = trace_next_cta(k, &c, &e);
            trace_kernel_close(k);
            if (rc < 0)
                return fprintf(stderr, "%s\n", e.msg), 1;
        }
        double t = now() - t0;
        best = t < best ? t : best;
        trace_cta_free(&c);
        trace_list_free(&l);
    }
    printf("%.3f\n", best * 1e3);
    return 0;
}
EOF
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -include stdlib.h -Isrc -o "$work/load" "$work/load.c" \
    build/liblockstep.a -fopenmp -lzstd -llzma -ldeflate -lz -lm

# bash's own clock (EPOCHREALTIME, microseconds): a `date` process in the timed span cost
# more than the smaller traces' whole check
best_check() { # path -> best wall ms of `trace check`
    local best="" t0 t1 d
    for _ in $(seq "$reps"); do
        t0=${EPOCHREALTIME/./}
        "$bin" trace check "$1" >/dev/null
        t1=${EPOCHREALTIME/./}
        d=$((t1 - t0))
        if [ -z "$best" ] || [ "$d" -lt "$best" ]; then best=$d; fi
    done
    awk -v u="$best" 'BEGIN { printf "%.1f", u / 1000 }'
}
kbytes() { # dir glob -> total bytes
    local n=0 f
    for f in "$1"/$2; do [ -f "$f" ] && n=$((n + $(wc -c <"$f"))); done
    echo "$n"
}

# The plain text and .xz forms of a trace directory.
forms() { # src name -> $work/NAME.txt (plain), $work/NAME.xz (xz)
    local src=$1 name=$2
    "$bin" trace convert --to accelsim "$src" --out "$work/$name.txt" >/dev/null
    if ls "$src"/*.traceg.xz >/dev/null 2>&1; then
        mkdir -p "$work/$name.xz" && cp "$src"/* "$work/$name.xz/"
    else
        mkdir -p "$work/$name.xz" && cp "$src"/kernelslist.g "$work/$name.xz/"
        for f in "$src"/*.traceg; do xz -6 -c "$f" >"$work/$name.xz/$(basename "$f").xz"; done
        sed -i 's/\.traceg$/.traceg.xz/' "$work/$name.xz/kernelslist.g"
    fi
}

row() { # src name
    local src=$1 name=$2 nat xzb natb txtb
    nat="$work/$name.lsn"
    "$bin" trace convert --to native "$src" --out "$nat" >/dev/null
    forms "$src" "$name"
    txtb=$(kbytes "$src" 'kernel*.traceg')
    [ "$txtb" -gt 0 ] || txtb=$(kbytes "$work/$name.txt" 'kernel*.traceg')
    xzb=$(kbytes "$work/$name.xz" '*.xz')
    natb=$(kbytes "$nat" '*.lsn.traceg')
    local ct cn lt lx ln
    ct=$(best_check "$src")
    cn=$(best_check "$nat")
    lx=$("$work/load" "$work/$name.xz" "$reps")
    lt=$("$work/load" "$work/$name.txt" "$reps")
    ln=$("$work/load" "$nat" "$reps")
    awk -v n="$name" -v t="$txtb" -v x="$xzb" -v b="$natb" -v ct="$ct" -v cn="$cn" \
        -v lt="$lt" -v lx="$lx" -v ln="$ln" 'BEGIN {
        printf "| %-22s | %11d | %9d | %8d | %7.1fx | %8.1f | %7.1f | %6.1fx | %8.1f | %8.1f | %7.2f | %6.0fx | %6.0fx |\n",
            n, t, x, b, x / b, ct, cn, ct / cn, lx, lt, ln, lx / ln, lt / ln }'
}

echo "| trace | text bytes | .xz bytes | native | xz/native | check stored ms | check native ms | check speedup | load .xz ms | load text ms | load native ms | vs .xz | vs text |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
if [ -d "$shared/traces/accelsim" ]; then
    for d in "$shared"/traces/accelsim/*/; do row "${d%/}" "$(basename "$d")"; done
else
    echo "(no $shared/traces/accelsim: shared traces skipped)" >&2
fi
for d in samples/synth/*/ samples/vecadd_sm80/; do row "${d%/}" "$(basename "$d")"; done
"$bin" synth vectoradd --n=4M --out "$work/big-vectoradd" >/dev/null
row "$work/big-vectoradd" "vectoradd --n=4M"
"$bin" synth stencil2d --nx=2048 --ny=1024 --out "$work/big-stencil" >/dev/null
row "$work/big-stencil" "stencil2d 2048x1024"
"$bin" synth gather --n=1M --out "$work/big-gather" >/dev/null
row "$work/big-gather" "gather --n=1M"
