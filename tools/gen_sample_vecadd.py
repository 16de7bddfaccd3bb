#!/usr/bin/env python3
"""Writes samples/vecadd_sm80/ (kernelslist.g, kernel-1.traceg): a small hand-made Accel-Sim
trace (tracer version 5, sm_80) of C[i] = A[i] + B[i] for n = 250 floats, grid (4,1,1) x block
(64,1,1). Warp 7 (threads 224..255) is partially active: lanes 0..25 run, 26..31 exit early.
Usage: tools/gen_sample_vecadd.py [OUTDIR]"""
import os
import sys

N, GRID, BLOCK = 250, 4, 64
A, B, C = 0x7F1A2C000000, 0x7F1A2C000400, 0x7F1A2C000800
FULL = 0xFFFFFFFF


def warp_lines(first_thread):
    lanes = max(0, min(32, N - first_thread))
    act = (1 << lanes) - 1
    out = [(0x00, FULL, "1 R1 MOV 0", ""), (0x10, FULL, "1 R6 S2R 0", ""),
           (0x20, FULL, "1 R3 S2R 0", ""), (0x30, FULL, "1 R6 IMAD 2 R6 R3", ""),
           (0x40, FULL, "0 ISETP.GE.AND 1 R6", "", 250),
           (0x50, FULL & ~act, "0 EXIT 0", "")]
    if lanes == 0:
        return out
    mem = lambda base: "4 1 0x%x 4" % (base + 4 * first_thread)
    out += [(0x60, act, "1 R7 HFMA2.MMA 2 R255 R255", ""), (0x70, act, "0 ULDC.64 0", ""),
            (0x80, act, "1 R4 IMAD.WIDE 2 R6 R7", ""), (0x90, act, "1 R2 IMAD.WIDE 2 R6 R7", ""),
            (0xA0, act, "1 R4 LDG.E 1 R4", mem(B)), (0xB0, act, "1 R3 LDG.E 1 R2", mem(A)),
            (0xC0, act, "1 R6 IMAD.WIDE 2 R6 R7", ""), (0xD0, act, "1 R0 FADD 2 R4 R3", ""),
            (0xE0, act, "0 STG.E 2 R6 R0", mem(C)), (0xF0, act, "0 EXIT 0", "")]
    return out


def fmt(pc, mask, ops, addr, imm=0):
    # non-memory lines carry mem_width 0; every v5 line ends with the immediate and a space
    return "%04x %08x %s %s %d " % (pc, mask, ops, addr if addr else "0", imm)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "samples/vecadd_sm80"
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "kernelslist.g"), "w") as f:
        f.write("MemcpyHtoD,0x%016x,%d\nMemcpyHtoD,0x%016x,%d\nkernel-1.traceg\n" % (A, 4 * N, B, 4 * N))
    lines = ["-kernel name = _Z6vecAddPKfS0_Pfi", "-kernel id = 1", "-grid dim = (%d,1,1)" % GRID,
             "-block dim = (%d,1,1)" % BLOCK, "-shmem = 0", "-nregs = 10", "-binary version = 80",
             "-cuda stream id = 0", "-shmem base_addr = 0x00007f1a54000000",
             "-local mem base_addr = 0x00007f1a52000000", "-nvbit version = 1.7",
             "-accelsim tracer version = 5", "-enable lineinfo = 0", "",
             "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] "
             "mem_width [adrrescompress?] [mem_addresses] immediate", "", ""]
    for cta in range(GRID):
        lines += ["", "#BEGIN_TB", "", "thread block = %d,0,0" % cta]
        for w in range(BLOCK // 32):
            body = warp_lines(cta * BLOCK + w * 32)
            lines += ["", "warp = %d" % w, "insts = %d" % len(body)] + [fmt(*i) for i in body]
        lines += ["", "#END_TB"]
    with open(os.path.join(out, "kernel-1.traceg"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
