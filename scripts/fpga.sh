#!/usr/bin/env bash
# The Mini NPU as an iCE40 bitstream, through the open flow: yosys (synth_ice40) ->
# nextpnr-ice40 (place and route, timing) -> icepack (bitstream) -> icetime (a second,
# independent timing analysis of the routed design).
#
#   scripts/fpga.sh icebreaker [--baud N] [--clock MHZ] [--seed S] [--out DIR]
#       writes DIR/npu.bin (default build/fpga/icebreaker) for iceprog or
#       `openFPGALoader -b ice40_generic`, with the reports beside it: utilization.txt,
#       timing.txt, the tools' logs. Fails, naming the cause, when the design does not fit
#       the UP5K or misses timing (nextpnr's analysis) at the clock the PLL really makes.
#       icetime's analysis, a second and more conservative timing model, is reported beside
#       it but does not fail the build (docs/NPU.md, "On a board": the two disagree).
#   scripts/fpga.sh seeds N [--out DIR]
#       places and routes with seeds 1..N and prints Fmax min / median / max.
#   scripts/fpga.sh netlist OUT.v
#       writes the post-synthesis netlist of npu_ice40 (the NPU without the PLL and pins),
#       for the gate-level check against Yosys's own cell models.
# The clock defaults to 42 MHz (clock_mhz below) and must be one the PLL makes exactly from
# 12 MHz; the baud rate picks the clocks per UART bit, and a rate the clock cannot make
# within 2 % is refused. Needs yosys, nextpnr-ice40 and
# fpga-icestorm (scripts/setup.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/.."

clock_mhz=42        # the PLL's output: 12 MHz * 56 / 16
board=rtl/boards/icebreaker
seed=4              # the seed the bitstream uses: the best of 1-5 (docs/NPU.md, "On a board")

die() { echo "fpga.sh: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null || die "$1 is missing: run scripts/setup.sh (Debian package $2)"; }

# The RTL of the iCE40 build: the package, every shared module except the generic SPRAM
# model, the iCE40 wrappers in its place, and the configuration.
rtl_files() {
  echo rtl/npu_pkg.sv
  for f in rtl/npu_*.sv; do
    case "$f" in rtl/npu_pkg.sv|rtl/npu_spram.sv) ;; *) echo "$f" ;; esac
  done
  ls rtl/ice40/*.sv
}

synthesize() {  # synthesize TOP OUT_DIR "extra yosys commands"
  local top=$1 out=$2 extra=$3 start=$SECONDS
  need yosys yosys
  mkdir -p "$out"
  # -dsp: the MAC lanes' multiplies in SB_MAC16; the weight memory is instantiated SPRAM.
  if ! yosys -q -l "$out/yosys.log" -p "read_verilog -sv $(rtl_files | tr '\n' ' ') $board/icebreaker_top.sv;
        $extra; synth_ice40 -top $top -dsp -json $out/$top.json; tee -q -o $out/yosys-stat.txt stat" \
        >/dev/null 2>&1; then
    tail -20 "$out/yosys.log" >&2
    die "yosys failed; see $out/yosys.log"
  fi
  echo "fpga.sh: synthesis of $top: $((SECONDS - start)) s" >&2
}

# Clocks per bit for BAUD at the clock, refusing an error of 2 % or more.
clks_per_bit() {
  awk -v f="$clock_mhz" -v b="$1" 'BEGIN {
    n = int(f * 1e6 / b + 0.5); err = (f * 1e6 / n - b) / b * 100; if (err < 0) err = -err;
    if (n < 4 || err >= 2) { printf "%d %.2f\n", n, err; exit 1 } printf "%d %.2f\n", n, err }'
}

# The PLL's dividers for the clock, from icepll; fails when it cannot make it exactly.
pll_params() {
  need icepll fpga-icestorm
  local report
  report=$(icepll -i 12 -o "$clock_mhz" 2>&1) || die "icepll cannot make $clock_mhz MHz from 12 MHz"
  grep -q "F_PLLOUT: *$clock_mhz.000 MHz (achieved)" <<<"$report" \
    || die "the PLL cannot make exactly $clock_mhz MHz from 12 MHz: $(grep achieved <<<"$report")"
  local r f q fr
  r=$(awk '/^DIVR:/ {print $2}' <<<"$report"); f=$(awk '/^DIVF:/ {print $2}' <<<"$report")
  q=$(awk '/^DIVQ:/ {print $2}' <<<"$report"); fr=$(awk '/^FILTER_RANGE:/ {print $2}' <<<"$report")
  echo "-set PllDivr $r -set PllDivf $f -set PllDivq $q -set PllFilterRange $fr"
}

# Place and route JSON with SEED into DIR; prints the achieved Fmax (MHz) of the NPU clock.
place_route() {  # place_route JSON DIR SEED
  local json=$1 dir=$2 s=$3
  need nextpnr-ice40 nextpnr-ice40
  mkdir -p "$dir"
  # --freq: the clock the PLL makes; nextpnr fails when the routed design misses it.
  if ! nextpnr-ice40 --up5k --package sg48 --pcf "$board/icebreaker.pcf" --json "$json" \
      --asc "$dir/npu.asc" --freq "$clock_mhz" --seed "$s" -q -l "$dir/nextpnr.log" >/dev/null 2>&1; then
    grep -E "ERROR|FAIL|Max frequency" "$dir/nextpnr.log" | tail -5 >&2 || true
    die "nextpnr-ice40 failed (seed $s): $(grep -m1 -E 'ERROR' "$dir/nextpnr.log" || echo 'see the log') ($dir/nextpnr.log)"
  fi
  fmax "$dir/nextpnr.log"
}

# The NPU clock's Fmax from a nextpnr log: the last report (after routing).
fmax() {
  grep -E "Max frequency for clock .*clk" "$1" | tail -1 | sed -E 's/.*: ([0-9.]+) MHz.*/\1/'
}

cmd_icebreaker() {
  local baud=3000000 out=build/fpga/icebreaker
  while [ $# -gt 0 ]; do
    case "$1" in
      --baud) baud=$2; shift 2 ;;
      --clock) clock_mhz=$2; shift 2 ;;
      --seed) seed=$2; shift 2 ;;
      --out) out=$2; shift 2 ;;
      *) die "unknown option '$1' for icebreaker (use --baud N, --clock MHZ, --seed S, --out DIR)" ;;
    esac
  done
  local cpb
  cpb=$(clks_per_bit "$baud") \
    || die "$baud baud at $clock_mhz MHz needs $(cut -d' ' -f1 <<<"$cpb") clocks per bit, $(cut -d' ' -f2 <<<"$cpb") % off; use a rate within 2 % (115200, 921600, 3000000)"
  local n=${cpb% *} err=${cpb#* }
  echo "fpga.sh: $clock_mhz MHz, $baud baud = $n clocks per bit ($err % off)" >&2

  synthesize icebreaker_top "$out" "chparam $(pll_params) -set ClksPerBit $n icebreaker_top"
  local f
  f=$(place_route "$out/icebreaker_top.json" "$out" "$seed")
  need icepack fpga-icestorm
  icepack "$out/npu.asc" "$out/npu.bin.tmp" && mv "$out/npu.bin.tmp" "$out/npu.bin"
  # icetime: the routed design's worst path by icestorm's own timing model, a second opinion
  local icetime_verdict=met
  icetime -d up5k -P sg48 -c "$clock_mhz" -t "$out/npu.asc" >"$out/icetime.txt" 2>&1 || icetime_verdict=missed
  grep -q "Total path delay" "$out/icetime.txt" || die "icetime failed: $(tail -1 "$out/icetime.txt")"

  # Reports: utilization and timing, as the tools print them.
  awk '/Device utilisation/ { on = 1; next } on && !/[0-9]+%/ { exit } on { sub(/^Info:[ \t]*/, ""); print }' \
    "$out/nextpnr.log" >"$out/utilization.txt"
  {
    echo "clock: $clock_mhz MHz (PLL), seed $seed"
    echo "nextpnr Fmax: $f MHz"
    echo "icetime: $(grep -E 'Total path delay' "$out/icetime.txt") - $clock_mhz MHz $icetime_verdict by its model"
    echo "UART: $baud baud = $n clocks per bit ($err % off)"
  } >"$out/timing.txt"
  cat "$out/utilization.txt" "$out/timing.txt"
  echo "fpga.sh: wrote $out/npu.bin; flash it with: iceprog $out/npu.bin" >&2
}

cmd_seeds() {
  local n=$1 out=build/fpga/seeds
  shift
  [ "${1:-}" = --out ] && out=$2
  synthesize icebreaker_top "$out" "chparam $(pll_params) -set ClksPerBit 14 icebreaker_top"
  local results=()
  for s in $(seq 1 "$n"); do
    # a seed that misses the clock still reports its Fmax: keep it in the statistics
    nextpnr-ice40 --up5k --package sg48 --pcf "$board/icebreaker.pcf" --json "$out/icebreaker_top.json" \
      --freq "$clock_mhz" --seed "$s" --timing-allow-fail -q -l "$out/seed-$s.log" >/dev/null 2>&1 \
      || die "nextpnr-ice40 failed for seed $s ($out/seed-$s.log)"
    results+=("$(fmax "$out/seed-$s.log")")
    echo "seed $s: ${results[-1]} MHz" >&2
  done
  printf '%s\n' "${results[@]}" | sort -g | awk '{ v[NR] = $1 } END {
    med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
    printf "Fmax over %d seeds: min %.2f, median %.2f, max %.2f MHz\n", NR, v[1], med, v[NR] }'
}

cmd_netlist() {
  local v=${1:?usage: fpga.sh netlist OUT.v} dir
  dir=$(mktemp -d)
  synthesize npu_ice40 "$dir" ""
  yosys -q -p "read_json $dir/npu_ice40.json; write_verilog -noattr $v.tmp" >/dev/null && mv "$v.tmp" "$v"
  rm -rf "$dir"
}

case "${1:-}" in
  icebreaker) shift; cmd_icebreaker "$@" ;;
  seeds) shift; cmd_seeds "$@" ;;
  netlist) shift; cmd_netlist "$@" ;;
  *) die "usage: fpga.sh icebreaker [--baud N] [--clock MHZ] [--seed S] [--out DIR] | seeds N | netlist OUT.v" ;;
esac
