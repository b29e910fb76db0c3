// Int8Model -> NpuImage: the layout of docs/NPU.md, "The model image" and "Layer
// descriptors", in the direction of the NPU. The model must first be one the integer
// reference runs (quant::validate_int8_inference: shapes, zero-points, shifts, no int32
// accumulator overflow); on top the builder checks only what is the NPU's own: the target's
// lane count, layer count, activation buffers, weight memory and row memories. Any int32
// multiplier is fine: both requantizers multiply by the full signed 32-bit value, and the
// 5-bit shift field holds exactly the reference's shifts 0 to 31.
#pragma once

#include "seatorch/npu/image.hpp"
#include "seatorch/npu/target.hpp"
#include "seatorch/quant/int8_model.hpp"

namespace seatorch::npu {

// Lays out `model` for `target`. Throws InputError naming the rule, or the limit and the
// target, that the model breaks.
NpuImage build_npu_image(const quant::Int8Model& model, const NpuTarget& target = default_npu_target());

}  // namespace seatorch::npu
