#!/usr/bin/env bash
# Cross-builds the matmul kernels and their tests for AArch64 (the NEON kernel) with
# g++-aarch64-linux-gnu and runs them under qemu-aarch64. Called by scripts/test.sh;
# exits non-zero on failure.
set -euo pipefail
cd "$(dirname "$0")/.."

build=build/cross-aarch64
echo "== aarch64 (NEON under qemu): configure and build" >&2
cmake -S tests/cross -B "$build" -G Ninja -DSEATORCH_WERROR=ON \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" >/dev/null
cmake --build "$build"
echo "== aarch64 (NEON under qemu): test" >&2
ctest --test-dir "$build" --output-on-failure
