#!/usr/bin/env python3
"""Paired timing of two lockstep binaries on a noisy 2-core host.

usage: bench/abpair.py [--core C | --wall] N BIN_A BIN_B RUN-ARGS...
e.g.   bench/abpair.py 40 /tmp/old build/lockstep run /tmp/gather-native --threads=1

Each pair starts A and B at the same moment, one pinned to each of cores 0 and 1, and swaps
the cores every pair, so both see the host's speed of that moment. With --core C the pair
runs one after the other on core C instead (A first in even pairs, B first in odd ones):
two runs at once share the host's last-level cache and memory bus, which a memory-bound
workload feels (gather: an A/A IQR of 0.89-1.11 at once, 0.98-1.03 in turn). Prints the medians of the
CPU (user + sys) seconds and the median and interquartile range of the per-pair ratios A/B
(above 1: B is faster). An A/A run shows the noise floor (about 0.96-1.02 here).
With --wall the pair runs in turn on no particular core and the wall seconds are compared:
for runs with --threads above 1, whose CPU time counts the threads' waiting.
"""
import os
import statistics
import sys
import time


def spawn(path, args, cpu):
    pid = os.fork()
    if pid == 0:
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.execv(path, [path] + args)
    return pid


def collect(cpu):
    """Waits for one child; records its CPU (user + sys) seconds by pid."""
    pid, status, ru = os.wait4(-1, 0)
    if status != 0:
        sys.exit(f"abpair: a run failed (status {status})")
    cpu[pid] = ru.ru_utime + ru.ru_stime


def main():
    argv = sys.argv[1:]
    core, wall = None, False
    if argv[:1] == ["--core"] and len(argv) > 1:
        core, argv = int(argv[1]), argv[2:]
    elif argv[:1] == ["--wall"]:
        wall, argv = True, argv[1:]
    if len(argv) < 4:
        sys.exit(__doc__)
    n, a, b, args = int(argv[0]), argv[1], argv[2], argv[3:]
    ta, tb, ratio = [], [], []
    for i in range(n):
        cpu = {}
        if wall:
            order = (a, b) if i % 2 == 0 else (b, a)
            pids = []
            for path in order:
                t0 = time.perf_counter()
                pids.append(spawn(path, args, None))
                collect(cpu)
                cpu[pids[-1]] = time.perf_counter() - t0
            pa, pb = pids if i % 2 == 0 else pids[::-1]
        elif core is None:
            ca, cb = (0, 1) if i % 2 == 0 else (1, 0)
            pa, pb = spawn(a, args, ca), spawn(b, args, cb)
            for _ in range(2):
                collect(cpu)
        else:
            order = (a, b) if i % 2 == 0 else (b, a)
            pids = []
            for path in order:
                pids.append(spawn(path, args, core))
                collect(cpu)
            pa, pb = pids if i % 2 == 0 else pids[::-1]
        ta.append(cpu[pa])
        tb.append(cpu[pb])
        ratio.append(cpu[pa] / cpu[pb])
    ratio.sort()
    q = lambda p: ratio[int(p * (len(ratio) - 1))]
    what = "wall" if wall else "CPU"
    print(f"{what}: A median {statistics.median(ta) * 1e3:.1f} ms, B median {statistics.median(tb) * 1e3:.1f} ms; "
          f"A/B per pair: median {statistics.median(ratio):.3f}, IQR [{q(.25):.3f}, {q(.75):.3f}] (n={n})")


if __name__ == "__main__":
    main()
