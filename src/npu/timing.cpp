// The cycle model of npu_sequencer.sv, stage by stage (docs/NPU.md, "Timing").
#include "seatorch/npu/timing.hpp"

#include <algorithm>

namespace seatorch::npu {

std::uint64_t npu_layer_cycles(const NpuLayerInfo& layer, const NpuTarget& target) {
  // Derived from npu_sequencer.sv, cycle by cycle (docs/NPU.md, "Timing"):
  // the descriptor fetch: 4 DMEM reads and the cycle that takes the last word.
  constexpr std::uint64_t kFetch = 5;
  // From the issue of a group's last input to its first output leaving the shadow bank: the
  // memory read, the MAC array's 3 register stages, the shadow bank's load.
  constexpr std::uint64_t kIssueToFeed = 1 + 3 + 1;
  // After the last output leaves the shadow bank: the feeder's register before the
  // requantizer, the requantizer, and the cycle in which the sequencer sees it idle.
  constexpr std::uint64_t kFeedRegister = 1;
  constexpr std::uint64_t kDrainCheck = 1;
  const std::uint64_t lanes = target.limits.lanes;
  const std::uint64_t interval = target.requant_interval();
  const std::uint64_t g = npu_groups(layer.out, target.limits.lanes);
  const std::uint64_t last_group_outputs = layer.out - (g - 1) * lanes;
  // Cycles from one group's last input to the next one's. The next group's last input waits
  // until this group's last output has left the shadow bank (the feeder's `pending_q`); and
  // the next group's outputs enter the requantizer no sooner than `lanes` intervals after this
  // group's first did. With the pipelined requantizer the first bound is lanes + 5, with the
  // serial one the second (68 * lanes), and the MAC array runs at full speed when in is larger.
  const std::uint64_t period =
      std::max({std::uint64_t{layer.in}, interval * lanes, kIssueToFeed + interval * (lanes - 1) + 1});
  return kFetch + layer.in + (g - 1) * period + kIssueToFeed + interval * (last_group_outputs - 1) + kFeedRegister +
         target.requant_latency() + kDrainCheck;
}

std::uint64_t npu_inference_cycles(const NpuImage& image) {
  std::uint64_t cycles = 0;
  for (const NpuLayerInfo& l : image.layers) cycles += npu_layer_cycles(l, image.target);
  return cycles;
}

}  // namespace seatorch::npu
