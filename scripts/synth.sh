#!/usr/bin/env bash
# Synthesizes the Mini NPU (rtl/) with Yosys and prints its resource counts:
#   - Xilinx 7-series (synth_xilinx) with the default parameters of npu_pkg,
#   - iCE40 UltraPlus (synth_ice40 -dsp): npu_ice40, the iCE40 configuration (8 lanes, the
#     weights in the four SPRAMs), with rtl/ice40/ in place of the generic SPRAM model - the
#     core of scripts/fpga.sh's bitstream, which also places, routes and times it.
# The weight, bias, multiplier, activation and frame memories must map to block RAM
# (RAMB18E1/RAMB36E1, SB_RAM40_4K); the script fails when they do not.
# Usage: scripts/synth.sh [OUTPUT_DIR]   (default build/synth; logs and full reports there)
# Takes about a minute per target on the development machine; not part of the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-build/synth}
mkdir -p "$out"
command -v yosys >/dev/null || { echo "synth.sh: yosys is missing: sudo apt-get install yosys" >&2; exit 1; }

# the package first, then every module; iCE40: its SPRAM wrapper instead of the generic model
rtl=(rtl/npu_pkg.sv)
for f in rtl/*.sv; do [ "$f" = rtl/npu_pkg.sv ] || rtl+=("$f"); done
ice40_rtl=()
for f in "${rtl[@]}"; do [ "$f" = rtl/npu_spram.sv ] || ice40_rtl+=("$f"); done
ice40_rtl+=(rtl/ice40/*.sv)

run() {  # run NAME "FILES" "YOSYS COMMANDS"
  local name=$1 files=$2 script=$3 start=$SECONDS
  # Yosys's own block-RAM mapping prints port-resizing warnings by the hundred; they are in
  # the log, and the log's tail is shown on failure.
  if ! yosys -q -l "$out/$name.log" -p "read_verilog -sv $files; $script; tee -q -o $out/$name.stat stat" \
      >/dev/null 2>&1; then
    tail -20 "$out/$name.log" >&2
    echo "synth.sh: yosys failed for $name; see $out/$name.log" >&2
    exit 1
  fi
  echo "$name: $((SECONDS - start)) s" >&2
}

# cell count of TYPE in a stat report (0 when absent)
count() { awk -v t="$2" '$1 == t { n += $2 } END { print n + 0 }' "$1"; }
sum() { local f=$1 n=0; shift; for t in "$@"; do n=$((n + $(count "$f" "$t"))); done; echo "$n"; }

run xilinx "${rtl[*]}" "synth_xilinx -top npu_top -flatten"
run ice40 "${ice40_rtl[*]}" "synth_ice40 -top npu_ice40 -dsp"

x=$out/xilinx.stat
i=$out/ice40.stat
x_bram36=$(count "$x" RAMB36E1)
x_bram18=$(count "$x" RAMB18E1)
i_bram=$(count "$i" SB_RAM40_4K)

printf '\n%-34s %10s %10s %10s %10s\n' "target" "LUT" "FF" "BRAM" "DSP"
printf '%-34s %10s %10s %10s %10s\n' "xc7 (synth_xilinx), defaults" \
  "$(sum "$x" LUT1 LUT2 LUT3 LUT4 LUT5 LUT6)" "$(sum "$x" FDCE FDPE FDRE FDSE)" \
  "${x_bram36}x36K+${x_bram18}x18K" "$(count "$x" DSP48E1)"
printf '%-34s %10s %10s %10s %10s\n' "iCE40 UP (synth_ice40 -dsp), npu_ice40" \
  "$(count "$i" SB_LUT4)" "$(sum "$i" SB_DFF SB_DFFE SB_DFFR SB_DFFS SB_DFFER SB_DFFES SB_DFFSR SB_DFFSS SB_DFFESR SB_DFFESS)" \
  "${i_bram}x4K+$(count "$i" SB_SPRAM256KA)xSPRAM" "$(count "$i" SB_MAC16)"
echo "xc7 also: $(count "$x" RAM64X1S) RAM64X1S (distributed RAM), $(count "$x" CARRY4) CARRY4," \
  "$(count "$x" INV) INV (reset inverters, absorbed by the FFs in place and route)"

# The memories must be block RAM: at least the weight memory's share on each target.
if [ "$x_bram36" -lt 64 ] || [ "$i_bram" -lt 8 ] || [ "$(count "$i" SB_SPRAM256KA)" -ne 4 ]; then
  echo "synth.sh: the memories did not map to block RAM ($x_bram36 RAMB36E1, $i_bram SB_RAM40_4K," \
    "$(count "$i" SB_SPRAM256KA) SB_SPRAM256KA)" >&2
  exit 1
fi
