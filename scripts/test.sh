#!/usr/bin/env bash
# The README's test command (and CI's): installs what is missing, builds the Release and
# the ASan+UBSan presets, and runs the whole suite on each with ctest (the Release build
# includes the iCE40 gate-level netlist model and its [netlist] test); builds the iCEBreaker
# bitstream, which fails on a resource overflow or missed timing (scripts/fpga.sh); then cross-builds the
# matmul kernels for AArch64 and runs their tests under qemu (scripts/test-neon.sh), and
# fuzzes the file readers with libFuzzer for FUZZ_SECONDS each (scripts/fuzz.sh, default
# 30 s per target). Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh

for preset in release asan; do
  echo "== $preset: configure and build" >&2
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  echo "== $preset: test" >&2
  ctest --preset "$preset"
done

echo "== iCE40: bitstream for the iCEBreaker, timing at the PLL clock" >&2
./scripts/fpga.sh icebreaker --out build/fpga/icebreaker

./scripts/test-neon.sh

./scripts/fuzz.sh
