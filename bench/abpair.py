#!/usr/bin/env python3
"""Paired timing of two lockstep binaries on a noisy 2-core host.

usage: bench/abpair.py N BIN_A BIN_B RUN-ARGS...
e.g.   bench/abpair.py 40 /tmp/old build/lockstep run /tmp/gather-native --threads=1

Each pair starts A and B at the same moment, one pinned to each of cores 0 and 1, and swaps
the cores every pair, so both see the host's speed of that moment. Prints the medians of the
CPU (user + sys) seconds and the median and interquartile range of the per-pair ratios A/B
(above 1: B is faster). An A/A run shows the noise floor (about 0.96-1.02 here).
"""
import os
import statistics
import sys


def spawn(path, args, cpu):
    pid = os.fork()
    if pid == 0:
        os.sched_setaffinity(0, {cpu})
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.dup2(null, 2)
        os.execv(path, [path] + args)
    return pid


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    n, a, b, args = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
    ta, tb, ratio = [], [], []
    for i in range(n):
        ca, cb = (0, 1) if i % 2 == 0 else (1, 0)
        pa, pb = spawn(a, args, ca), spawn(b, args, cb)
        cpu = {}
        for _ in range(2):
            pid, status, ru = os.wait4(-1, 0)
            if status != 0:
                sys.exit(f"abpair: a run failed (status {status})")
            cpu[pid] = ru.ru_utime + ru.ru_stime
        ta.append(cpu[pa])
        tb.append(cpu[pb])
        ratio.append(cpu[pa] / cpu[pb])
    ratio.sort()
    q = lambda p: ratio[int(p * (len(ratio) - 1))]
    print(f"A median {statistics.median(ta) * 1e3:.1f} ms, B median {statistics.median(tb) * 1e3:.1f} ms; "
          f"A/B per pair: median {statistics.median(ratio):.3f}, IQR [{q(.25):.3f}, {q(.75):.3f}] (n={n})")


if __name__ == "__main__":
    main()
