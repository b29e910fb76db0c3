#!/usr/bin/env bash
# The README's test command (and CI's): installs what is missing, runs the fast checks
# (scripts/check-format.sh, line-budget.sh, check-includes.py; CHECKS=warn|skip), builds the Release and
# the ASan+UBSan presets, and runs the whole suite on each with ctest (the Release build
# includes the iCE40 gate-level netlist model and its [netlist] test); builds the iCEBreaker
# bitstream, which fails on a resource overflow or missed timing (scripts/fpga.sh); then cross-builds the
# matmul kernels for AArch64 and runs their tests under qemu (scripts/test-neon.sh), and
# fuzzes the file readers with libFuzzer for FUZZ_SECONDS each (scripts/fuzz.sh, default
# 30 s per target). Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh

# The fast checks first (a few seconds): formatting, the line budget, and the include graph's
# layers (docs/ARCHITECTURE.md). All of them run, then the stage fails if any failed.
# CHECKS=warn reports their failures and goes on to the builds; CHECKS=skip skips them.
case "${CHECKS:-strict}" in
  strict|warn)
    echo "== checks: format, line budget, include layers" >&2
    failed=()
    ./scripts/check-format.sh || failed+=(check-format.sh)
    ./scripts/line-budget.sh --quiet || failed+=(line-budget.sh)
    python3 ./scripts/check-includes.py --self-test || failed+=("check-includes.py --self-test")
    python3 ./scripts/check-includes.py || failed+=(check-includes.py)
    if [ ${#failed[@]} -gt 0 ]; then
      echo "== checks failed: ${failed[*]}" >&2
      [ "${CHECKS:-strict}" = warn ] || exit 1
    fi
    ;;
  skip) echo "== checks: skipped (CHECKS=skip)" >&2 ;;
  *) echo "test.sh: CHECKS must be strict, warn or skip (got '${CHECKS}')" >&2; exit 2 ;;
esac

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
