// Fake quantization with a straight-through gradient: the op that quantization-aware
// training inserts into the float forward pass (docs/QUANTIZATION.md, section 8).
//
// Forward, for a grid with scale s > 0, zero-point z and integer range [qmin, qmax]:
//   q = clamp(round(x / s) + z, qmin, qmax),     y = (q - z) * s
// with round-half-away-from-zero (std::round), computed in double exactly as
// quant::QuantParams::quantize and dequantize do, so y is the float32 of the value the
// int8 model represents.
// Backward: the clipped straight-through estimator (PyTorch's fake_quantize_per_tensor_affine
// rule): dy/dx = 1 where the clamp did not act (qmin <= round(x / s) + z <= qmax) and 0
// where it did, so rounding is invisible to the gradient but saturation stops it.
// The grids are constants: no gradient reaches a scale or zero-point (this is not LSQ).
// Kernels: read x with any strides; the output and the saved gradient mask are contiguous.
// Deliberately not here: choosing grids (quant/quantizer.hpp does that) and per-channel
// grids along any axis but the first.
#pragma once

#include "seatorch/tensor/tensor.hpp"

#include <cstdint>
#include <span>

namespace seatorch::tensor {

// One affine integer grid; the fields of quant::QuantParams (the tensor engine does not
// depend on the quantizer).
struct AffineGrid {
  double scale = 1.0;           // > 0 and finite
  std::int32_t zero_point = 0;  // in [qmin, qmax]
  std::int32_t qmin = -128;
  std::int32_t qmax = 127;
};

// Per tensor: every element on one grid.
Tensor fake_quantize(const Tensor& x, const AffineGrid& grid);
// Per channel: x (rows, cols), row r on rows[r] (a weight (out, in) per output channel).
Tensor fake_quantize_rows(const Tensor& x, std::span<const AffineGrid> rows);

}  // namespace seatorch::tensor
