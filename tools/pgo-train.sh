#!/bin/sh
# Training runs for the profile-guided build (Makefile, PGO): every bundled sample on one
# thread, one on two threads, and one as a native trace, so the profile covers the text and
# native readers, the serial and the parallel paths. usage: pgo-train.sh BIN WORKDIR
set -e
bin=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
for w in samples/synth/*/ samples/vecadd_sm80/; do
    "$bin" run --threads=1 "$w" >/dev/null
done
"$bin" run --threads=2 samples/synth/multi >/dev/null
"$bin" trace convert --to native samples/synth/gather --out "$work/gather" >/dev/null
"$bin" run --threads=1 "$work/gather" >/dev/null
rm -rf "$work"
