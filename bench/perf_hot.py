#!/usr/bin/env python3
"""Where a run's time sits, instruction by instruction (not part of the test run).

usage: bench/perf_hot.py PERF_DATA [N]
e.g.   perf record -F 20000 -o /tmp/p.data -- sh -c 'for i in 1 2 3 4 5 6 7 8; do
           build/lockstep run /tmp/gather-native --threads=1 >/dev/null; done'
       bench/perf_hot.py /tmp/p.data 40

Charges each sample of every function over 1% of the profile to its instruction and prints
the N instructions with the largest share of all samples (over 0.25%), with the source line
perf annotate puts above each. Callgrind counts instructions, which a flat profile spreads
evenly; the time a host spends stalled (a load waiting for stores it cannot forward, a load
that misses the cache) lands on one instruction, or on the next one, and shows here. Needs
`perf` (cpu-clock sampling works in a VM without hardware counters) and a build with `-g`.
"""
import re
import subprocess
import sys


def functions(data):
    rep = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "symbol",
                          "--stdio"], capture_output=True, text=True, check=True).stdout
    for line in rep.splitlines():
        m = re.match(r"\s+([0-9.]+)%\s+\[\.\]\s+(\S+)", line)
        if m and float(m.group(1)) > 1.0:
            yield float(m.group(1)), m.group(2)


def hot(data, share, name):
    out = subprocess.run(["perf", "annotate", "-i", data, "--stdio", "-s", name],
                         capture_output=True, text=True).stdout
    src = ""
    for line in out.splitlines():
        m = re.match(r"\s+:\s+\d+\s+(.*)", line)
        if m:
            src = m.group(1).strip()[:90]
            continue
        m = re.match(r"\s+([0-9.]+)\s+:\s+[0-9a-f]+:\s+(.*)", line)
        if m:
            pct = float(m.group(1)) * share / 100
            if pct > 0.25:
                yield pct, name, m.group(2).strip()[:40], src


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    rows = [r for share, name in functions(sys.argv[1]) for r in hot(sys.argv[1], share, name)]
    for pct, name, insn, src in sorted(rows, reverse=True)[:n]:
        print("%5.2f%% %-28s %-40s | %s" % (pct, name, insn, src))


if __name__ == "__main__":
    main()
