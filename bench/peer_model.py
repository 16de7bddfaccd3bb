#!/usr/bin/env python3
"""What Accel-Sim would likely take on a workload it was never run on (not part of the test run).

usage: bench/peer_model.py [--shared DIR] [--bin PATH] LSBENCH_JSON
e.g.   build/lsbench --threads 1 --repeats 5 --native --json /tmp/b.json
       bench/peer_model.py /tmp/b.json

lsbench compares the synth samples, which no peer has run, with the Accel-Sim paper's 12.5K
warp instructions per second. Accel-Sim's time is not a fixed price per warp instruction, and
its own runs in ../shared/reference/ say what it does depend on:

  * a price per simulated cycle even with little to do (its memory partitions and
    interconnect tick every cycle): F = user s / cycles of its run with the least activity on
    that GPU config (start-up included, so an upper bound of the idle price);
  * a price per L2 access, which carries a memory request through L1, crossbar, L2 and DRAM:
    m = (user s - F x cycles) / L2 accesses of its busiest run (vecadd_sm61 on the TITAN X);
  * a price w per warp instruction, which the references barely pin down: its busy runs
    issue about one L2 access a warp instruction, and the references are +-30%.

So two fits of t = F x cycles + w x warp insts + m x L2 accesses, both printed with their
checks on runs they were not fitted on:
  A: w = 0, m from the TITAN X's vecadd (checked on matrixmul32, whose 4,416 warp
     instructions and 384 L2 accesses cost what F and m alone predict, and on vectoradd_sm80
     of the RTX 3070);
  B: w and m from vecadd (TITAN X) and vectoradd_sm80 (RTX 3070) together (checked on
     matrixmul32: it over-prices compute).
For each synth row of the lsbench JSON (its native copy takes the stats of its text row: the
same simulation) it runs the sample once, one thread, for its cycles and L2 accesses, and
prints the estimated Accel-Sim user seconds by both fits (without the cycle term on a GPU
config no reference run had: a lower bound), and lockstep's rate (warp
instructions per median CPU s of the JSON row) over the faster of the two estimated Accel-Sim
rates as `x est.` (so the lower ratio); `x paper` is lsbench's own column. An estimate, not a
measurement: it says for which workloads the paper's figure is a generous or a stingy
yardstick, not what the peer would measure. Memory-bound kernels (gather, hmma) come out far
above the paper's figure under both fits; compute-bound ones (branchy, reduce) depend on w.
"""
import json
import os
import re
import subprocess
import sys

FIT_IDLE = {"SM6_TITANX": "vectoradd100_sm61_TITANX", "SM86_RTX3070": "ffma_sm90as86_RTX3070"}
FIT_MEM = "vecadd_sm61_TITANX"
FIT_PAIR = "vectoradd_sm80_RTX3070"  # fit B's second run
FITTED = {"A": {FIT_MEM}, "B": {FIT_MEM, FIT_PAIR}}  # beside the FIT_IDLE runs
GPU_CONFIG = {"RTX 3070": "SM86_RTX3070"}  # lockstep's gpu_name -> the reference's config


def user_seconds(shared):
    """run -> user s, from the rate table of the reference README (the first figure)."""
    out = {}
    text = open(os.path.join(shared, "reference", "README.md")).read()
    for m in re.finditer(r"^\| (\w+) \| [\d,]+ \| ([\d.]+)", text, re.M):
        out[m.group(1)] = float(m.group(2))
    return out


def totals(shared):
    """run -> (config, cycles, warp insts, L2 accesses), from the TOTAL rows."""
    path = os.path.join(shared, "reference", "accelsim", "summary.tsv")
    rows = [line.rstrip("\n").split("\t") for line in open(path)]
    head, out = rows[0], {}
    col = {name: i for i, name in enumerate(head)}
    for r in rows[1:]:
        if len(r) == len(head) and r[col["row"]] == "TOTAL":
            out[r[col["run"]]] = (r[col["config"]], int(r[col["gpu_tot_sim_cycle"]]),
                                  int(r[col["warp_insts_cum"]]), int(r[col["L2_accesses_cum"]]))
    return out


def fit(user, tot):
    """The idle prices, and the (w, m) pairs of fits A and B."""
    idle = {cfg: user[run] / tot[run][1] for cfg, run in FIT_IDLE.items()}
    rest = {}  # run -> (user s less its idle price, warp insts, L2 accesses)
    for run in (FIT_MEM, FIT_PAIR):
        cfg, cyc, wi, l2 = tot[run]
        rest[run] = (user[run] - idle[cfg] * cyc, wi, l2)
    a = (0.0, rest[FIT_MEM][0] / rest[FIT_MEM][2])
    (t1, w1, l1), (t2, w2, l2) = rest[FIT_MEM], rest[FIT_PAIR]
    det = w1 * l2 - w2 * l1
    b = ((t1 * l2 - t2 * l1) / det, (w1 * t2 - w2 * t1) / det)
    return idle, {"A": a, "B": b}


def price(idle, wm, cfg, cyc, winst, l2):
    return idle.get(cfg, 0.0) * cyc + wm[0] * winst + wm[1] * l2


def stats_of(binary, argv):
    args = [binary] + [a if a != "--threads=N" else "--threads=1" for a in argv[1:]]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    # the last value: a trace of several kernels prints the running totals after each
    get = lambda key: re.findall(r"^%s = (.+)$" % key, out, re.M)[-1].split("#")[0].strip()
    return (get("knob gpu_name"), int(get("gpu_tot_sim_cycle")),
            int(get("gpgpu_n_tot_w_icount")), int(get("L2_total_cache_accesses")))


def main(argv):
    shared, binary, files = os.environ.get("LOCKSTEP_SHARED", "../shared"), "build/lockstep", []
    it = iter(argv)
    for a in it:
        if a in ("--shared", "--bin"):
            val = next(it, None)
            if val is None:
                sys.exit("peer_model: %s needs a value" % a)
            shared, binary = (val, binary) if a == "--shared" else (shared, val)
        elif a.startswith("-"):
            sys.exit(__doc__)
        else:
            files.append(a)
    if len(files) != 1:
        sys.exit(__doc__)
    if not os.path.isfile(os.path.join(shared, "reference", "accelsim", "summary.tsv")):
        sys.exit("peer_model: no Accel-Sim reference under %s (--shared DIR)" % shared)
    user, tot = user_seconds(shared), totals(shared)
    idle, fits = fit(user, tot)
    print("idle price per cycle: %s" % ", ".join("%s %.1f us" % (c, f * 1e6) for c, f in idle.items()))
    for name, wm in fits.items():
        checks = []
        for run in sorted(user):  # the runs the fit did not see, on a config with an idle price
            if run in tot and tot[run][0] in idle and run not in FITTED[name] | set(FIT_IDLE.values()):
                cfg, cyc, wi, l2 = tot[run]
                checks.append("%s %.2f s predicted, %.2f s measured" %
                              (run, price(idle, wm, cfg, cyc, wi, l2), user[run]))
        print("fit %s: %.1f us per warp instruction, %.1f us per L2 access; checks: %s" %
              (name, wm[0] * 1e6, wm[1] * 1e6, "; ".join(checks)))
    rows = json.load(open(files[0]))["rows"]
    print("\n| row | cycles | warp insts | L2 accesses | est. Accel-Sim s (A, B) "
          "| est. warp inst/s (faster) | x est. | x paper |")
    print("|---|---|---|---|---|---|---|---|")
    seen = {}
    for r in rows:
        if not r["workload"].startswith("synth/") or r["threads"] != 1 or not r["ok"]:
            continue
        base = r["workload"].replace(" native", "")
        if base not in seen:
            if base != r["workload"]:  # a native copy's trace was lsbench's temporary
                continue
            seen[base] = stats_of(binary, r["argv"])
        gpu, cyc, winst, l2 = seen[base]
        cfg = GPU_CONFIG.get(gpu)
        est = [price(idle, wm, cfg, cyc, winst, l2) for wm in fits.values()]
        peer = winst / min(est)
        print("| %s | %d | %d | %d | %.2f, %.2f | %.0f | %.0f | %.1f |" %
              (r["workload"], cyc, winst, l2, est[0], est[1], peer,
               winst / r["median_cpu_s"] / peer, r["x_accelsim_rate"]))


if __name__ == "__main__":
    main(sys.argv[1:])
