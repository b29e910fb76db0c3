// The NPU targets: each build of the Mini NPU that seatorch lays images out for and simulates,
// written down once (src/npu/target.cpp). A target is its memories' sizes, its requantizer,
// the RTL top that Verilator compiles for it and the clock it is built for:
//   default     npu_top with the npu_pkg defaults: 16 lanes, 256 KiB of weights, the
//               pipelined requantizer (one output per cycle)
//   icebreaker  npu_ice40 (rtl/npu_ice40.sv), the iCE40 UP5K build: 8 lanes, the weights in
//               the four SPRAMs (128 KiB), the serial requantizer (one output per 68 cycles)
// `seatorch export --hex --target NAME` lays an image out for one, its manifest records it, and
// `seatorch sim` runs the image on that target's Verilated model.
// Deliberately data only: the layout (image_builder.hpp), the timing formula (timing.hpp)
// and the simulation (session.hpp) read a target; none of that lives here, so the image
// tools need no Verilator.
#pragma once

#include "seatorch/npu/constants.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::npu {

// The sizes an image must fit (npu_top's parameters, docs/NPU.md "Parameters").
struct NpuLimits {
  std::size_t lanes = 0;
  std::size_t wmem_depth = 0;  // weight rows of `lanes` bytes
  std::size_t row_depth = 0;   // bias / multiplier / shift entries
  std::size_t act_depth = 0;   // widest layer
  std::size_t max_layers = 0;

  bool operator==(const NpuLimits&) const = default;
};

struct NpuTarget {
  std::string name;         // what --target and the manifest say
  std::string description;  // one line for reports
  std::string rtl_top;      // the Verilated top module that simulates it
  NpuLimits limits;
  bool serial_requant = false;  // npu_requant_serial (no multiplier) instead of npu_requant
  double clock_mhz = 0.0;       // the clock its wall times assume

  // The requantizer's timing (docs/NPU.md, "Timing"): the fewest cycles from one output
  // entering it to the next, and from an output entering it to its int8 result.
  [[nodiscard]] unsigned requant_interval() const;
  [[nodiscard]] unsigned requant_latency() const;

  bool operator==(const NpuTarget&) const = default;
};

// Every target, `default` first.
const std::vector<NpuTarget>& npu_targets();
std::vector<std::string> npu_target_names();

// The target called `name`; throws InputError naming the valid ones.
const NpuTarget& npu_target(std::string_view name);
const NpuTarget& default_npu_target();

// The most clock cycles the NPU of `target` computes before it answers a request, whatever
// image it holds: twice what the largest image it can hold may take (every weight row, every
// row through the requantizer one interval apart, each layer's overhead). Without a target
// (a serial port, whose board the host cannot see): the most over all targets.
std::uint64_t npu_max_answer_cycles(const NpuTarget& target);
std::uint64_t npu_max_answer_cycles();

// The names of the targets with `lanes` lanes ("icebreaker"), comma-separated; empty when none
// has. For the message about an image laid out for another target than the one at hand.
std::string npu_targets_with_lanes(std::size_t lanes);

}  // namespace seatorch::npu
