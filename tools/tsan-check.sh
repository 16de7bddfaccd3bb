#!/bin/sh
# The parallel code under ThreadSanitizer (make tsan): the thread team's tests, then bundled
# samples on 2 to 4 threads under every schedule and in the windowed mode, each run's
# statistics compared with the one-thread run's. Any report ends the run that made it with exit status 66, which fails.
# usage: tsan-check.sh BIN TESTS WORKDIR
set -u
bin=$1
tests=$2
work=$3
TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 suppressions=$(pwd)/tools/tsan.supp"
export TSAN_OPTIONS
rm -rf "$work"
mkdir -p "$work"
# Older ThreadSanitizer runtimes (gcc 12's) refuse to start where the kernel places mappings
# more randomly than they expect ("unexpected memory mapping"): then run without address
# space randomisation, or say the check could not run at all.
if ! "$bin" --version >/dev/null 2>"$work/start.err"; then
    if [ -z "${TSAN_CHECK_NORAND:-}" ] && command -v setarch >/dev/null; then
        TSAN_CHECK_NORAND=1 exec setarch "$(uname -m)" -R "$0" "$@"
    fi
    cat "$work/start.err"
    echo "tsan: skipped (the ThreadSanitizer runtime does not start on this host)"
    exit 0
fi
pass=0
fail=0
if LOCKSTEP_BIN=$bin "$tests" sim_team >"$work/tests.log" 2>&1; then
    pass=$((pass + 1))
else
    fail=$((fail + 1))
    tail -40 "$work/tests.log"
    echo "FAIL: the team's tests under ThreadSanitizer (log above)"
fi
# Sample $1 on one thread with the options $2, then with $2 and each further argument: each
# run's statistics must equal the one-thread run's, and no run may report. $3 names the runs.
same_as_one_thread() {
    w=$1 common=$2 tag=$3 i=0
    shift 3
    # shellcheck disable=SC2086 # common and opts hold several arguments
    if ! "$bin" run --threads=1 $common --stats-json="$work/$w-$tag.json" "samples/synth/$w" \
        >/dev/null 2>"$work/$w-$tag.err"; then
        fail=$((fail + 1))
        tail -40 "$work/$w-$tag.err"
        echo "FAIL: $w $common on one thread"
        return
    fi
    for opts in "$@"; do
        i=$((i + 1))
        # shellcheck disable=SC2086
        if "$bin" run $common $opts --stats-json="$work/$w-$tag$i.json" "samples/synth/$w" \
            >/dev/null 2>"$work/$w-$tag$i.err" &&
            cmp -s "$work/$w-$tag.json" "$work/$w-$tag$i.json"; then
            pass=$((pass + 1))
        else
            fail=$((fail + 1))
            tail -60 "$work/$w-$tag$i.err"
            echo "FAIL: $w $common $opts (a report above, or statistics unlike one thread's)"
        fi
    done
}
for w in reduce gather sgemm-tiled multi hmma; do
    same_as_one_thread "$w" "" base "--threads=2" "--threads=2 --team_start_ms=0" \
        "--threads=4 --team_start_ms=0" "--threads=3 --omp_schedule=static" \
        "--threads=4 --omp_schedule=dynamic" "--threads=2 --team_start_ms=0 --team_profile=1" \
        "--threads=3 --omp_schedule=static --team_profile=1"
done
# the windowed mode (sync_window): its own one-thread statistics against 2 and 4 threads
for w in reduce gather multi; do
    same_as_one_thread "$w" "--sync_window=16" window "--threads=2" "--threads=4"
done
echo "tsan: $pass passed, $fail failed"
[ "$fail" = 0 ] && rm -rf "$work"
[ "$fail" = 0 ]
