#!/usr/bin/env bash
# Installs what seatorch needs to build and test, from the distribution's packages.
# Idempotent: installs only what is missing, and does nothing when everything is there.
# Uses sudo when not run as root. On a system without apt-get it prints the list and
# exits 1, so that you can install the equivalents by hand.
set -euo pipefail

packages=(
  build-essential cmake ninja-build   # compiler and build
  libcli11-dev libfmt-dev libspdlog-dev nlohmann-json3-dev zlib1g-dev libstb-dev
  catch2                              # tests (Catch2 v2)
  verilator                           # the Mini NPU's RTL, compiled into the binary
  yosys nextpnr-ice40 fpga-icestorm fpga-icestorm-chipdb  # the iCE40 bitstream (scripts/fpga.sh) and its gate-level netlist model
  libopenblas-dev                     # `seatorch bench matmul`'s yardstick (optional for the build)
  g++-aarch64-linux-gnu qemu-user     # the NEON kernel: cross-built and tested under qemu
  jq                                  # demo.sh reads the JSON results for its summary
  clang libclang-rt-14-dev            # libFuzzer + sanitizers for the readers' fuzz targets (scripts/fuzz.sh)
  clang-format-14                     # scripts/check-format.sh and scripts/format.sh (the version is pinned)
)

if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-query >/dev/null 2>&1; then
  echo "setup.sh: this system has no apt-get; install these (Debian 12 names) by hand:" >&2
  echo "  ${packages[*]}" >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup.sh: all ${#packages[@]} packages are installed" >&2
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "setup.sh: missing packages and no sudo; as root run: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  sudo=(sudo)
fi

echo "setup.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
