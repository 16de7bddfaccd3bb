#!/bin/sh
# Training runs for the profile-guided build (Makefile, PGO): every bundled sample on one
# thread, one on two threads, one as a native trace, and the windowed mode on one and two
# threads, so the profile covers the text and native readers, the serial and the parallel paths,
# and the windowed mode's own loop (without it that code is built as if never run).
# usage: pgo-train.sh BIN WORKDIR
set -e
bin=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
for w in samples/synth/*/ samples/vecadd_sm80/; do
    "$bin" run --threads=1 "$w" >/dev/null
done
"$bin" run --threads=2 samples/synth/multi >/dev/null
for w in samples/synth/multi/ samples/synth/vectoradd/ samples/synth/histogram/; do
    "$bin" run --threads=1 --sync_window=16 "$w" >/dev/null
done
"$bin" run --threads=2 --sync_window=16 samples/synth/reduce >/dev/null
"$bin" trace convert --to native samples/synth/gather --out "$work/gather" >/dev/null
# Twice: the windowed runs above shift the shared functions' branch weights, and gather (the
# one-thread row closest to its 20x) is what the exact path's profile should favour.
"$bin" run --threads=1 "$work/gather" >/dev/null
"$bin" run --threads=1 "$work/gather" >/dev/null
# A regular trace read whole as native: its strided warps are what most native CTAs hold, and
# a run alone decodes too few of them for the profile to count the decoder as hot.
"$bin" synth vectoradd --n=262144 --out "$work/va" >/dev/null
"$bin" trace convert --to native "$work/va" --out "$work/va-native" >/dev/null
"$bin" trace check "$work/va-native" >/dev/null
rm -rf "$work"
