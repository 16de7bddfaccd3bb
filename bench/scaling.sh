#!/usr/bin/env bash
# The many-core scaling measurement in one command (not part of the test run): lsbench's
# large workloads at 1, 2, 4, ... threads on the default GPU and the H100 preset, the same
# at four times the length, the windowed mode (--sync_window=16) on both, and the thread
# team's profile by thread count (where the loop's time goes as threads are added). Meant for
# a lent many-core machine, whose minutes are few: on 16 cores it takes 6-8 minutes; QUICK=1
# runs a small version for a dry run; WINDOW=0 leaves the windowed tables out; TABLES="h100
# window" runs only the tables named (profile is one); NATIVE_ONLY=1 drops the text traces'
# rows (the native rows take less of a short lease). The windowed tables end with their runs
# against one exact thread of the same GPU and length, where both tables ran.
# Usage: bench/scaling.sh [OUTDIR]     (default /tmp/lockstep-scaling; THREADS=1,2,4 to choose)
# Writes OUTDIR/{default,h100,default-x4,h100-x4,window,window-h100-x4}.{txt,json} and
# OUTDIR/profile.txt.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${1:-/tmp/lockstep-scaling}
cores=$(nproc)
threads=${THREADS:-}
if [ -z "$threads" ]; then
    threads=1
    for ((t = 2; t <= cores; t *= 2)); do threads+=",$t"; done
    [ "${threads##*,}" = "$cores" ] || threads+=",$cores"
fi
reps=3 wide="1,${threads##*,}"
if [ "${QUICK:-0}" = 1 ]; then threads=1,2 reps=1 wide=1,2; fi
bin=build/lockstep lsb=build/lsbench
[ -x "$bin" ] && [ -x "$lsb" ] || make -s "$bin" "$lsb" || exit 1
mkdir -p "$out" || exit 1
rc=0
native=--native
[ "${NATIVE_ONLY:-0}" = 1 ] && native=--native-only
tables=${TABLES:-default h100 default-x4 h100-x4 window window-h100-x4 profile}
[ "${WINDOW:-1}" = 0 ] && tables=${tables//window/}

table() { # name lsbench-args...
    local name=$1
    shift
    [[ " $tables " == *" $name "* ]] || return 0
    echo "== $name ($(date -u +%T) UTC)"
    "$lsb" --large --only large/ $native --repeats "$reps" --json "$out/$name.json" "$@" \
        >"$out/$name.txt" 2>&1 || rc=1
    grep -E '^\| (workload|large/)|^slowest|^round trip|^with the median' "$out/$name.txt"
}

table default --threads "$threads"
table h100 --threads "$threads" --extra=--preset=h100
table default-x4 --threads "$wide" --scale 4 --no-core-check
table h100-x4 --threads "$wide" --scale 4 --no-core-check --extra=--preset=h100
table window --threads "$threads" --no-core-check --extra=--sync_window=16
table window-h100-x4 --threads "$threads" --scale 4 --no-core-check \
    --extra=--preset=h100 --extra=--sync_window=16

# The windowed tables against the exact ones of the same GPU and length: one exact thread's
# median wall time over the windowed run's at each thread count (the number a user weighing
# the mode wants; each table's own speedup column is over its own one thread).
against_exact() { # exact-table windowed-table
    [ -f "$out/$1.json" ] && [ -f "$out/$2.json" ] || return 0
    echo "== $2 against one exact thread of $1 (exact 1-thread wall / windowed wall)"
    python3 - "$out/$1.json" "$out/$2.json" <<'PY' || rc=1
import json, sys
exact = {r["workload"]: r for r in json.load(open(sys.argv[1]))["rows"] if r["threads"] == 1}
rows = json.load(open(sys.argv[2]))["rows"]
for w in dict.fromkeys(r["workload"] for r in rows):
    if w in exact and exact[w].get("median_wall_s"):
        e = exact[w]["median_wall_s"]
        cells = ["%d: %.2fx" % (r["threads"], e / r["median_wall_s"])
                 for r in rows if r["workload"] == w and r.get("median_wall_s")]
        print("%s (exact 1 thread %.3f s): %s" % (w, e, ", ".join(cells)))
PY
}
against_exact default window
against_exact h100-x4 window-h100-x4
[[ " $tables " == *" profile "* ]] || { echo "results in $out"; exit $rc; }

# The team forced on from the first edge, so every thread count runs the same edges as a team.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
    echo "== team profile by threads, native traces, default GPU ($(date -u +%T) UTC)"
    for w in vectoradd reduce; do
        "$bin" synth "$w" --n=1M --out "$work/$w" >/dev/null &&
            "$bin" trace convert --to native "$work/$w" --out "$work/$w.n" >/dev/null || rc=1
        for t in ${threads//,/ }; do
            echo "-- $w --n=1M native, --threads=$t"
            "$bin" run "$work/$w.n" --threads="$t" --team_adapt=0 --team_start_ms=0 \
                --team_profile=1 | grep -E '^# (simulation rate|team profile)' || rc=1
        done
    done
} >"$out/profile.txt"
cat "$out/profile.txt"
echo "results in $out"
exit $rc
