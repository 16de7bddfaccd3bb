#!/bin/sh
# Regenerates the bundled samples: every synth workload at its default parameters, written to
# samples/synth/NAME with xz-compressed kernel files. Each sample's synth.txt records its
# parameters; tests/test_samples.c regenerates every sample from that file and fails if the
# committed traces differ, so samples never drift from the generator.
# Usage: tools/gen_samples.sh [LOCKSTEP_BINARY]
set -eu
bin=${1:-build/lockstep}
rm -rf samples/synth
for name in $("$bin" synth --list | awk 'NR > 1 { print $1 }'); do
    "$bin" synth "$name" --xz --out "samples/synth/$name"
done
