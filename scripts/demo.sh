#!/usr/bin/env bash
# The README's main command: from a fresh Debian/Ubuntu machine, installs what is missing,
# builds the Release preset, and runs the main job. Today that is the scalar autograd
# engine learning XOR and the two moons; the later stages (MNIST, INT8, the Mini NPU)
# extend this same script as they land.
set -euo pipefail
cd "$(dirname "$0")/.."

./scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release
seatorch=build/release/seatorch

echo
echo "== the scalar engine learns XOR"
"$seatorch" train --dataset xor --engine scalar
echo
echo "== the scalar engine learns the two moons"
"$seatorch" train --dataset moons --engine scalar
