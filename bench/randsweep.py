#!/usr/bin/env python3
"""Random-configuration differential sweep (not part of the test run).

sweep.sh changes one knob at a time; a bug that needs two unusual knobs together (a tiny
queue and a slow clock domain, say) passes it. This draws, from a seed, a GPU (a preset or a
shared Accel-Sim config) and several knobs at once, runs a small trace to its end, and
checks what must hold for every config:

  - the run ends with status 0, or 2/3 for a configuration error, never 1 (the watchdog,
    or statistics that do not balance: docs/TIMING.md "The ledger"), a crash or a timeout;
  - without a stop knob, it retires every thread instruction of the trace (trace info);
  - the fast paths are exact: the same config with fast_forward, dram_defer, chan_sleep,
    memcpy_prefill_skip and host_simd off gives byte-identical statistics;
  - threads change nothing: --threads=3 (the team started at once) gives byte-identical
    statistics;
  - every SM park whose statistics were predicted holds up when its first cycle is run and
    measured as well (--host_park_check=1 ends with status 0 and the same statistics);
  - a generated (synth) trace's native copy (trace convert --to native), and that copy
    written back as Accel-Sim text (--to accelsim), give byte-identical statistics;
  - --stats-json leaves the output as it was and writes JSON that holds its totals, and that
    file given back as --config with only the trace runs the same;
  - the shared configs of a trial, through `config import`, run the same;
  - the run's output, given back as --config with only the trace, runs the same (the knob
    echo holds every knob: a run is reproducible from its output alone);
  - in the windowed mode (a random W), fast_forward=0, --threads=2, --threads=3 and
    --host_park_check=1 give byte-identical statistics to the windowed one-thread run.

The traces: the bundled samples (but gather), four shared Accel-Sim traces, both shared
MacSim GPU traces, and native copies of two of the Accel-Sim ones; or (--synth-share of the
trials, 0.3 by default) a synth workload generated with drawn parameters (tiny grids, odd
block sizes, 1-element arrays).

  bench/randsweep.py [--bin build/lockstep] [--trials 200] [--seed 1] [--jobs 2]
                     [--synth-share 0.3]

Each failure prints the trial's seed and a command that reproduces it; the exit status is 1
when any trial failed.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

PRESETS = ["rtx3070", "gtx480", "titanx", "qv100", "h100", "a100", "p100", "rtx3080ti"]

# knob -> candidate values (drawn uniformly); chosen to reach unusual corners, not to be
# realistic. Values a config may refuse are welcome: a refusal must be a clear status 2/3.
KNOBS = {
    "n_clusters": ["1", "3", "7", "46", "80"],
    "n_mem": ["1", "2", "3", "6", "16"],
    "dram_banks": ["4", "8", "16", "32"],
    "dram_bank_groups": ["1", "2", "4"],
    "max_threads_per_sm": ["256", "1024", "2048"],
    "regs_per_sm": ["16384", "65536"],
    "smem_per_sm": ["16384", "49152", "102400"],
    "l1d_set_index": ["linear", "fermi", "xor"],
    "l2_set_index": ["linear", "xor", "ipoly"],
    "l1d_mshr": ["assoc", "sector_assoc"],
    "l1d_data_port": ["0", "32"],
    "l2_data_port": ["0", "32"],
    "clock_gated_lanes": ["0", "1"],
    "max_cycles": ["0", "0", "0", "500", "3000"],
    "max_insts": ["0", "0", "0", "2000", "50000"],
    "omp_schedule": ["team", "static", "dynamic"],
    "team_min_edge_us": ["0", "5"],
    "team_chan_home": ["auto", "main", "spread"],
    "team_profile": ["0", "1"],
    "sync_window_compensate": ["0", "1"],
    "clock_icnt_mhz": ["500", "1132", "2000", "3001"],
    "clock_l2_mhz": ["400", "1132", "1700", "2900"],
    "clock_dram_mhz": ["300", "877", "3500.5", "7000"],
    "warp_scheduler": ["lrr", "gto", "two_level"],
    "two_level_active": ["1", "2", "8"],
    "schedulers_per_sm": ["1", "2", "4"],
    "sub_core_model": ["0", "1"],
    "inst_fetch_throughput": ["1", "2", "4"],
    "perfect_icache": ["0", "1"],
    "icache_miss_latency": ["1", "50", "400"],
    "pipe_oc_cycles": ["0", "1", "3", "7"],
    "pipe_wb_cycles": ["0", "1", "4"],
    "reg_banks": ["1", "2", "8", "16"],
    "reg_port_throughput": ["1", "2", "4"],
    "oc_units": ["1", "2", "8"],
    "units_mem": ["1", "2"],
    "lat_sp": ["1", "2", "9"],
    "lat_sfu": ["1", "21", "80"],
    "max_ctas_per_sm": ["1", "2", "3", "32"],
    "l1d_enabled": ["0", "1"],
    "l1d_mshr_entries": ["1", "2", "8", "384"],
    "l1d_mshr_merge": ["1", "2", "48"],
    "l1d_miss_queue": ["1", "2", "16"],
    "l1d_latency": ["1", "20", "39", "120"],
    "l1d_type": ["normal", "sector"],
    "l1d_sets": ["1", "4", "32"],
    "l1d_assoc": ["1", "4", "256"],
    "l2_type": ["normal", "sector"],
    "l1d_write": ["wt", "wb", "we", "lwb_gwt"],
    "l1d_alloc": ["on_miss", "on_fill", "streaming"],
    "l2_alloc": ["on_miss", "on_fill", "streaming"],
    "l2_write": ["wb", "wt"],
    "l1d_write_alloc": ["none", "write", "fetch", "lazy_fetch"],
    "l1d_repl": ["lru", "fifo"],
    "l1d_banks": ["1", "4"],
    "gmem_skip_l1d": ["0", "1"],
    "smem_latency": ["1", "29", "100"],
    "cluster_ejection_buffer": ["1", "2", "32"],
    "ldst_response_buffer": ["1", "2", "8"],
    "n_sub_partitions": ["1", "2", "4"],
    "l2_enabled": ["0", "1"],
    "l2_sets": ["16", "32", "64"],
    "l2_assoc": ["1", "4", "16"],
    "l2_mshr_entries": ["1", "2", "16", "192"],
    "l2_mshr_merge": ["1", "4"],
    "l2_miss_queue": ["3", "4", "32"],
    "l2_write_alloc": ["none", "write", "fetch", "lazy_fetch"],
    "l2_rop_latency": ["1", "2", "40", "187"],
    "dram_latency": ["1", "10", "254", "600"],
    "q_icnt_to_l2": ["1", "2", "64"],
    "q_l2_to_dram": ["1", "2", "64"],
    "q_dram_to_l2": ["1", "2", "64"],
    "q_l2_to_icnt": ["1", "2", "64"],
    "partition_indexing": ["consecutive", "xor", "ipoly", "random"],
    "memcpy_l2_prefill": ["0", "1"],
    "flush_l2_per_kernel": ["0", "1"],
    "flush_l1d_per_kernel": ["0", "1"],
    "dram_scheduler": ["frfcfs", "fcfs"],
    "dram_sched_queue": ["1", "2", "8", "0"],
    "dram_return_queue": ["1", "2", "8", "0"],
    "dram_dual_bus": ["0", "1"],
    "dram_bank_indexing": ["normal", "xor"],
    "dram_bankgroup_indexing": ["lower", "higher"],
    "dram_no_rw_turnaround": ["0", "1"],
    "dram_separate_write_queue": ["0", "1"],
    "dram_tRCD": ["1", "24", "60"],
    "dram_tRP": ["1", "24", "60"],
    "dram_tCL": ["1", "24", "40"],
    "dram_tCCD": ["1", "4", "8"],
    "dram_tRRD": ["1", "12", "30"],
    "dram_tRAS": ["1", "55", "90"],
    "dram_tWR": ["1", "24", "50"],
    "dram_tWL": ["1", "8", "20"],
    "dram_tCCDL": ["1", "6", "12"],
    "dram_tRTPL": ["1", "4", "10"],
    "dram_write_queue": ["2", "8", "32"],
    "dram_write_high": ["2", "6", "28"],
    "dram_write_low": ["1", "4", "16"],
    "l1d_adaptive": ["0", "1"],
    "l1d_unified_kb": ["0", "64", "128"],
    "l1d_write_ratio": ["0", "25", "100"],
    "l1i_enabled": ["0", "1"],
    "l1i_mshr_entries": ["1", "2", "8"],
    "perfect_inst_const_cache": ["0", "1"],
    "icnt_in_buffer": ["1", "2", "8", "512"],
    "icnt_out_buffer": ["1", "2", "8", "512"],
    "icnt_subnets": ["1", "2"],
    "icnt_flit_size": ["8", "32", "40", "136"],
    "icnt_arbiter": ["islip", "fifo"],
    "icnt_grant_cycles": ["1", "2", "3"],
    "icnt_latency": ["0", "1", "7", "50"],
    "kernel_launch_latency": ["0", "1", "5000"],
    "cta_launch_latency": ["0", "1", "30"],
    "concurrent_kernels": ["0", "1"],
    "max_concurrent_kernels": ["1", "2", "128"],
    "occupancy_mode": ["gpgpusim", "cuda"],
    "cores_per_cluster": ["1", "2", "3"],
    "warp_size": ["32", "32", "32", "64"],  # 64 is refused (a rule): seldom
    "clock_core_mhz": ["100", "1132", "5000"],
    "regs_per_cta": ["4096", "65536"],
    "max_regs_per_thread": ["16", "255"],
    "smem_per_cta": ["0", "1024", "49152"],
    "ignore_resource_limits": ["0", "1"],
    "occ_reg_alloc_unit": ["1", "256", "4096"],
    "occ_warp_alloc_granularity": ["1", "4", "64"],
    "max_issue_per_warp": ["1", "2", "8"],
    "dual_issue_diff_units": ["0", "1"],
    "reg_bank_use_warp_id": ["0", "1"],
    "oc_specialized": ["0", "1"],
    "oc_sp_units": ["0", "1", "4"],
    "oc_mem_units": ["0", "1", "2"],
    "pipe_id_oc_mem": ["0", "1", "4"],
    "pipe_oc_ex_mem": ["0", "1", "4"],
    "pipe_ex_wb": ["1", "2", "8"],
    "units_sp": ["0", "1", "4"],
    "units_int": ["0", "1", "4"],
    "units_sfu": ["0", "1"],
    "units_dp": ["0", "1"],
    "units_tensor": ["0", "1"],
    "lat_int": ["1", "2", "30"],
    "lat_dp": ["1", "64", "500"],
    "lat_tensor": ["1", "32"],
    "l1d_line": ["128", "128", "128", "64"],  # 64 is refused: seldom
    "l1d_result_fifo": ["0", "1", "8"],
    "l1d_bank_interleave": ["1", "32", "128"],
    "l1i_sets": ["1", "64"],
    "l1i_line": ["32", "128", "32", "128", "512"],
    "l1c_enabled": ["0", "1"],
    "l1c_sets": ["1", "128"],
    "l1c_line": ["16", "64"],
    "l1c_latency": ["1", "8", "100"],
    "l1t_enabled": ["0", "1"],
    "smem_carveouts_kb": ["0", "0,8,16,32,64,100", "16,48"],
    "smem_banks": ["1", "16", "32"],
    "smem_limited_broadcast": ["0", "1"],
    "smem_warp_parts": ["1", "2", "32"],
    "coalesce_arch": ["13", "20", "60", "86"],
    "l2_line": ["128", "128", "128", "256"],
    "l2_repl": ["lru", "fifo"],
    "l2_mshr": ["assoc", "sector_assoc", "tex_fifo", "sector_tex_fifo"],
    "l2_result_fifo": ["0", "1", "8"],
    "memcpy_truncate_32bit": ["0", "1"],
    "dram_chips_per_channel": ["1", "2", "4"],
    "dram_bus_width": ["1", "2", "8"],
    "dram_burst_length": ["1", "2", "8", "16"],
    "dram_data_cmd_ratio": ["1", "2", "4", "8"],
}

# the reference paths the fast ones must equal, and the knobs whose echo differs by design
SLOW = ["--fast_forward=0", "--dram_defer=0", "--chan_sleep=0", "--memcpy_prefill_skip=0",
        "--host_simd=0"]
ECHO_FREE = ("knob threads ", "knob fast_forward ", "knob dram_defer ", "knob chan_sleep ",
             "knob memcpy_prefill_skip ", "knob host_simd ", "knob team_start_ms ",
             "knob host_park_check ")


def traces(shared):
    out = ["samples/vecadd_sm80"] + sorted(
        os.path.join("samples/synth", d) for d in os.listdir("samples/synth"))
    out.remove("samples/synth/gather")  # the slowest sample by far; the others cover it
    acc = os.path.join(shared, "traces/accelsim")
    for t in ["vecadd_sm61_v3", "vectoradd100_sm61_v4", "matrixmul32_sm61_v4", "ffma_sm90_v5"]:
        if os.path.isdir(os.path.join(acc, t)):
            out.append(os.path.join(acc, t))
    for t in ["ptx_vectoradd", "nvbit_vectormultadd_4096"]:
        mac = os.path.join(shared, "traces/macsim", t)
        if os.path.isdir(mac):
            out.append(mac)
    return out


def natives(bin_, pool, tmp):
    """Native copies of two of the Accel-Sim traces (the native reader's path through a
    run), written once into tmp."""
    out = []
    for t in [t for t in pool if os.path.basename(t) in ("vecadd_sm61_v3",
                                                          "matrixmul32_sm61_v4")]:
        dst = os.path.join(tmp, os.path.basename(t) + ".native")
        p = subprocess.run([bin_, "trace", "convert", "--to", "native", t, "--out", dst],
                           capture_output=True, text=True)
        if p.returncode == 0:
            out.append(dst)
        else:
            print("randsweep: no native copy of %s: %s" % (t, p.stderr.strip()))
    return out


def stats(text):
    return "\n".join(l for l in text.splitlines()
                     if not l.startswith("#") and not l.startswith(ECHO_FREE))


def run_raw(bin_, args, timeout):
    """(status, stdout as printed, last line of stderr)"""
    try:
        p = subprocess.run([bin_, "run"] + args, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return 124, "", "timeout"
    err = [l for l in p.stderr.splitlines() if not l.startswith("#")]
    return p.returncode, p.stdout, (err[-1] if err else "")


def run(bin_, args, timeout):
    rc, out, err = run_raw(bin_, args, timeout)
    return rc, stats(out), err


_INSTS = {}


def trace_insts(bin_, trace):
    """total.thread_insts of `lockstep trace info`, once per trace (None: unknown)."""
    if trace not in _INSTS:
        p = subprocess.run([bin_, "trace", "info", trace], capture_output=True, text=True)
        v = [l.split(" = ")[1] for l in p.stdout.splitlines()
             if l.startswith("total.thread_insts = ")]
        _INSTS[trace] = int(v[0]) if p.returncode == 0 and v else None
    return _INSTS[trace]


def echo_values(text):
    """Statistics with the knob echo's source comments cut (a rerun names other sources)."""
    return "\n".join(l.split("   # ")[0] if l.startswith("knob ") else l
                     for l in text.splitlines())


def outputs_differ(bin_, args, base, timeout, json_path, out_path):
    try:
        return _outputs_differ(bin_, args, base, timeout, json_path, out_path)
    finally:
        for p in (json_path, out_path):
            if os.path.exists(p):
                os.remove(p)


def _outputs_differ(bin_, args, base, timeout, json_path, out_path):
    """Why the run's outputs disagree (None: they agree): with --stats-json its stdout is as
    it was and the JSON holds the text's total instructions and cycles; and each of the two,
    given back as the only --config with the trace, repeats the run (the knob echo and the
    JSON's knobs hold every knob that decides a statistic: a run is reproducible from its
    output alone; the JSON leaves out the host knobs, whose echo may differ)."""
    rc, raw, err = run_raw(bin_, args + ["--stats-json", json_path], timeout)
    if rc != 0 or stats(raw) != base:
        return "--stats-json changed the run (status %d %s)" % (rc, err)
    try:
        with open(json_path) as f:
            total = json.load(f)["total"]
    except (OSError, ValueError, KeyError) as e:
        return "--stats-json unreadable (%s)" % e
    for key in ("gpu_tot_sim_insn", "gpu_tot_sim_cycle"):
        line = "total.%s = " % key
        want = [l[len(line):] for l in base.splitlines() if l.startswith(line)]
        if not want or str(total.get(key)) != want[0]:
            return "--stats-json: %s is %s, the text says %s" % (key, total.get(key), want)
    with open(out_path, "w") as f:
        f.write(raw)
    host = ("knob team_", "knob omp_schedule ", "knob progress ", "knob host_hugepages ")
    for path, skip in ((out_path, ()), (json_path, host)):
        rc, got, err = run(bin_, [args[0], "--config=" + path], timeout)
        keep = lambda t: "\n".join(l for l in echo_values(t).splitlines()
                                   if not l.startswith(skip))
        if rc != 0 or keep(got) != keep(base):
            return "a run with %s as its --config differs (status %d %s)" % (
                os.path.basename(path), rc, err)
    return None


def import_differs(bin_, args, base, timeout, path):
    """With shared configs among the arguments: why a run given them as one params file
    (`config import`, which keeps the unmodelled options' notes) differs (None: it does not,
    or no config)."""
    files = [a[len("--config="):] for a in args if a.startswith("--config=")]
    if not files:
        return None
    p = subprocess.run([bin_, "config", "import"] + files + ["--out", path],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return "import status %d %s" % (p.returncode, p.stderr.strip())
    rest = [a for a in args if not a.startswith("--config=")]
    rc, got, err = run(bin_, [rest[0], "--config=" + path] + rest[1:], timeout)
    os.remove(path)
    if rc != 0 or echo_values(got) != echo_values(base):
        return "status %d %s" % (rc, err)
    return None


def retired(text):
    for l in text.splitlines():
        if l.startswith("total.gpu_tot_sim_insn = "):
            return int(l.split(" = ")[1])
    return None


def gpus(shared):
    """The presets, then the shared Accel-Sim configs (each its gpgpusim.config and, where
    there is one, its trace.config), as the arguments that select them."""
    out = [["--preset=" + p] for p in PRESETS]
    cfg = os.path.join(shared, "reference/accelsim-configs")
    for d in sorted(os.listdir(cfg)) if os.path.isdir(cfg) else []:
        files = [os.path.join(cfg, d, f) for f in ("gpgpusim.config", "trace.config")]
        out.append(["--config=" + f for f in files if os.path.isfile(f)])
    return out


# synth workloads drawn with odd shapes (small: a trial generates its own)
SYNTH = {
    "vectoradd": {"n": ["1", "33", "1000", "5000"], "block": ["32", "96", "1024"]},
    "saxpy-stride": {"n": ["7", "3000"], "block": ["32", "160", "1024"],
                     "stride": ["1", "3", "32", "1024"]},
    "reduce": {"n": ["1", "100", "9000"], "block": ["64", "512", "1024"],
               "first_add": ["0", "1"], "unroll_last_warp": ["0", "1"]},
    "sgemm-tiled": {"n": ["32", "64"], "tile": ["16", "32"], "conflict": ["0", "1"],
                    "pad": ["0", "1"]},
    "stencil2d": {"nx": ["3", "40", "130"], "ny": ["3", "17"], "bx": ["1", "7", "32"],
                  "by": ["1", "3", "8"], "points": ["5", "9"], "smem": ["0", "1"],
                  "iters": ["1", "2"]},
    "hmma": {"m": ["32", "64"], "n": ["32", "64"], "k": ["32", "96"], "warps": ["1", "2", "8"],
             "stages": ["2", "4"]},
    "gather": {"n": ["1", "500", "4000"], "block": ["32", "1024"],
               "footprint": ["64", "4096", "1M"], "elem": ["4", "8"]},
    "histogram": {"n": ["1", "3000"], "block": ["32", "256"], "bins": ["2", "256", "8192"],
                  "skew": ["0", "50", "100"], "grid": ["1", "5", "40"]},
    "branchy": {"n": ["1", "2000"], "block": ["32", "992"], "maxiter": ["1", "5", "64"],
                "threshold": ["0", "50", "100"]},
    "pchase": {"footprint": ["64", "8192", "1M"], "stride": ["4", "128", "4096"],
               "iters": ["1", "200"], "warmup": ["0", "1"]},
    "multi": {"n": ["1", "2000"], "block": ["32", "512"], "kernels": ["1", "3"]},
}


def synth_trace(bin_, r, tmp, seed):
    """Generates a synth workload with drawn parameters into tmp; its path, or None (a
    refused combination: the generator's own check, e.g. sgemm n not a multiple of tile)."""
    w = r.choice(sorted(SYNTH))
    params = ["--%s=%s" % (k, r.choice(v)) for k, v in sorted(SYNTH[w].items())
              if r.random() < 0.7]
    out = os.path.join(tmp, "synth-%d" % seed)
    p = subprocess.run([bin_, "synth", w] + params + ["--seed=%d" % seed, "--out", out],
                       capture_output=True, text=True)
    if p.returncode == 2:
        return None, "lockstep synth %s %s: %s" % (w, " ".join(params), p.stderr.strip())
    if p.returncode != 0:
        return None, "FAIL lockstep synth %s %s: status %d %s" % (
            w, " ".join(params), p.returncode, p.stderr.strip())
    return out, None


def draw(seed, pool, gpu_pool):
    r = random.Random(seed)
    knobs = r.sample(sorted(KNOBS), r.randint(2, 8))
    args = [r.choice(pool)] + r.choice(gpu_pool)
    args += ["--%s=%s" % (k, r.choice(KNOBS[k])) for k in knobs]
    window = r.choice([1, 3, 8, 16, 40])
    return args, window


def trial(bin_, seed, pool, gpu_pool, timeout, tmp, synth_share):
    """Returns (outcome, message): outcome 'ok', 'refused' or 'FAIL'."""
    args, w = draw(seed, pool, gpu_pool)
    r = random.Random(seed * 7919 + 1)
    if r.random() < synth_share:  # a generated trace of odd shape instead of the pool's
        path, why = synth_trace(bin_, r, tmp, seed)
        if path is None:
            return ("FAIL", "seed %d: %s" % (seed, why)) if why.startswith("FAIL") else (
                "refused", why)
        args[0] = path
    cmd = "lockstep run " + " ".join(args)
    rc, base, err = run(bin_, args, timeout)
    if rc in (2, 3):
        return "refused", "%s: %s" % (cmd, err)
    if rc != 0:
        return "FAIL", "seed %d: status %d (%s): %s" % (seed, rc, err, cmd)
    want = trace_insts(bin_, args[0])
    stopped = any(a.startswith(("--max_cycles=", "--max_insts=")) and not a.endswith("=0")
                  for a in args)
    if want is not None and not stopped and retired(base) != want:
        return "FAIL", "seed %d: %s instructions retired, the trace has %d: %s" % (
            seed, retired(base), want, cmd)
    why = outputs_differ(bin_, args, base, timeout, os.path.join(tmp, "stats-%d.json" % seed),
                         os.path.join(tmp, "out-%d.txt" % seed))
    if why:
        return "FAIL", "seed %d: %s: %s" % (seed, why, cmd)
    why = import_differs(bin_, args, base, timeout, os.path.join(tmp, "imp-%d.cfg" % seed))
    if why:
        return "FAIL", "seed %d: the configs through `config import` differ (%s): %s" % (
            seed, why, cmd)
    if args[0].startswith(tmp):  # a generated trace: its native copy runs the same, and so
        # does that copy written back as Accel-Sim text
        for to, src in (("native", args[0]), ("accelsim", args[0] + ".native")):
            dst = args[0] + "." + to
            p = subprocess.run([bin_, "trace", "convert", "--to", to, src, "--out", dst],
                               capture_output=True, text=True)
            rc2, got, err2 = run(bin_, [dst] + args[1:], timeout) if p.returncode == 0 else (
                p.returncode, "", p.stderr.strip())
            if rc2 != 0 or got != base:
                return "FAIL", "seed %d: the %s copy differs (status %d %s): %s" % (
                    seed, to, rc2, err2, cmd)
    # a small trace ends before the team's first solo period (team_start_ms): start it at once
    checks = [(SLOW, base, "fast paths off"),
              (["--threads=3", "--team_start_ms=0"], base, "--threads=3"),
              (["--host_park_check=1"], base, "--host_park_check=1")]
    wargs = args + ["--sync_window=%d" % w]
    rcw, wbase, errw = run(bin_, wargs, timeout)
    if rcw in (2, 3):  # the window alone refused (too short an ROP latency): no window checks
        wargs = None
    elif rcw != 0:
        return "FAIL", "seed %d: windowed status %d (%s): %s --sync_window=%d" % (
            seed, rcw, errw, cmd, w)
    for extra, want, what in checks:
        rc2, got, err2 = run(bin_, args + extra, timeout)
        if rc2 != 0 or got != want:
            return "FAIL", "seed %d: %s differs (status %d %s): %s %s" % (
                seed, what, rc2, err2, cmd, " ".join(extra))
    wchecks = [(["--fast_forward=0"], "windowed fast_forward=0"),
               (["--threads=2"], "windowed --threads=2"),
               (["--threads=3", "--team_start_ms=0"], "windowed --threads=3"),
               (["--host_park_check=1"], "windowed --host_park_check=1")]
    for extra, what in wchecks if wargs else []:
        rc2, got, err2 = run(bin_, wargs + extra, timeout)
        if rc2 != 0 or got != wbase:
            return "FAIL", "seed %d: %s differs (status %d %s): %s --sync_window=%d %s" % (
                seed, what, rc2, err2, cmd, w, " ".join(extra))
    return "ok", ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="build/lockstep")
    ap.add_argument("--trials", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--synth-share", type=float, default=0.3,
                    help="share of trials that generate a synth workload of drawn shape")
    a = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    shared = os.environ.get("LOCKSTEP_SHARED", "../shared")
    pool, gpu_pool = traces(shared), gpus(shared)
    tmp = tempfile.TemporaryDirectory(prefix="randsweep.")
    pool += natives(a.bin, pool, tmp.name)
    seeds = range(a.seed, a.seed + a.trials)
    counts = {"ok": 0, "refused": 0, "FAIL": 0}
    with ThreadPoolExecutor(a.jobs) as ex:
        for outcome, msg in ex.map(lambda s: trial(a.bin, s, pool, gpu_pool, a.timeout,
                                                   tmp.name, a.synth_share), seeds):
            counts[outcome] += 1
            if outcome == "FAIL" or (outcome == "refused" and counts["refused"] <= 5):
                print(("FAIL " if outcome == "FAIL" else "refused: ") + msg, flush=True)
    print("randsweep: %d trials (seeds %d-%d): %d ok, %d refused with a configuration "
          "error, %d failed" % (a.trials, a.seed, a.seed + a.trials - 1, counts["ok"],
                                counts["refused"], counts["FAIL"]))
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
