// The table of NPU targets: what each build of the Mini NPU is. The sizes come from npu_pkg
// (constants.hpp, checked against the package by tests/npu/constants_test.cpp); the
// requantizers' timing from their RTL.
#include "seatorch/npu/target.hpp"

#include "seatorch/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace seatorch::npu {
namespace {

// npu_requant: a 4-stage pipeline that accepts an output every cycle.
constexpr unsigned kPipelinedInterval = 1;
constexpr unsigned kPipelinedLatency = 4;
// npu_requant_serial: the bias add, 32 multiply steps, the rounding, 31 shift steps, the
// zero-point add and the clamp, one output at a time: valid_i to valid_o in 68 cycles, the
// next valid_i 68 cycles after the last (its state machine; every simulated inference checks
// that these numbers are the RTL's).
constexpr unsigned kSerialInterval = 68;
constexpr unsigned kSerialLatency = 68;

std::vector<NpuTarget> make_targets() {
  return {
      {"default", "npu_top, 16 lanes, 256 KiB of weights, pipelined requantizer", "npu_top",
       NpuLimits{kLanes, kWmemDepth, kRowDepth, kActDepth, kMaxLayers}, false, 100.0},
      // 42 MHz: the PLL's clock in scripts/fpga.sh (12 MHz * 56 / 16).
      {"icebreaker", "iCE40 UP5K (iCEBreaker), 8 lanes, 128 KiB of weights in SPRAM, serial requantizer", "npu_ice40",
       NpuLimits{kIce40Lanes, kIce40WmemDepth, kIce40RowDepth, kIce40ActDepth, kMaxLayers}, true, 42.0},
  };
}

}  // namespace

unsigned NpuTarget::requant_interval() const { return serial_requant ? kSerialInterval : kPipelinedInterval; }

unsigned NpuTarget::requant_latency() const { return serial_requant ? kSerialLatency : kPipelinedLatency; }

const std::vector<NpuTarget>& npu_targets() {
  static const std::vector<NpuTarget> targets = make_targets();
  return targets;
}

std::vector<std::string> npu_target_names() {
  std::vector<std::string> names;
  for (const NpuTarget& t : npu_targets()) names.push_back(t.name);
  return names;
}

const NpuTarget& npu_target(std::string_view name) {
  const std::vector<NpuTarget>& targets = npu_targets();
  const auto it = std::find_if(targets.begin(), targets.end(), [&](const NpuTarget& t) { return t.name == name; });
  if (it == targets.end()) {
    throw core::input_error("no NPU target '{}'; the targets are {}", core::printable(name),
                            fmt::join(npu_target_names(), ", "));
  }
  return *it;
}

const NpuTarget& default_npu_target() { return npu_targets().front(); }

std::string npu_targets_with_lanes(std::size_t lanes) {
  std::vector<std::string> names;
  for (const NpuTarget& t : npu_targets()) {
    if (t.limits.lanes == lanes) names.push_back(t.name);
  }
  return fmt::format("{}", fmt::join(names, ", "));
}

std::uint64_t npu_max_answer_cycles(const NpuTarget& target) {
  const NpuLimits& l = target.limits;
  return 2 * (l.wmem_depth + std::uint64_t{target.requant_interval()} * l.row_depth +
              l.max_layers * (l.act_depth + 64 + target.requant_latency()));
}

std::uint64_t npu_max_answer_cycles() {
  std::uint64_t most = 0;
  for (const NpuTarget& t : npu_targets()) most = std::max(most, npu_max_answer_cycles(t));
  return most;
}

}  // namespace seatorch::npu
