// The Mini NPU's clock cycles for one layer and for one inference of an image on its target,
// as counted by the NPU from the start of the first layer to the last logit (docs/NPU.md,
// "Timing"). With G = ceil(out / lanes) groups, c = out - (G - 1) * lanes outputs in the last
// one, and the requantizer's interval R and latency T (NpuTarget):
//   12 + in + (G - 1) * max(in, R * lanes, R * (lanes - 1) + 6) + R * (c - 1) + T
// that is 15 + in + (G - 1) * max(in, lanes + 5) + c for the pipelined requantizer (R = 1,
// T = 4) and 12 + in + (G - 1) * max(in, 68 * lanes) + 68 * c for the serial one (R = T = 68).
// The simulation tests check that the RTL takes exactly this many cycles; the session's
// response budget and the reports' throughput come from it.
#pragma once

#include "seatorch/npu/image.hpp"
#include "seatorch/npu/target.hpp"

#include <cstdint>

namespace seatorch::npu {

std::uint64_t npu_layer_cycles(const NpuLayerInfo& layer, const NpuTarget& target);
std::uint64_t npu_inference_cycles(const NpuImage& image);

}  // namespace seatorch::npu
