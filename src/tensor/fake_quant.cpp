// Fake quantization: the forward (round, clamp, rescale) and its straight-through backward.
#include "seatorch/tensor/fake_quant.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/tensor/autograd.hpp"
#include "seatorch/tensor/elementwise.hpp"
#include "strided.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace seatorch::tensor {
namespace {

void check_grid(const AffineGrid& g, const char* op) {
  if (!(g.scale > 0.0 && std::isfinite(g.scale)) || g.qmin > g.qmax || g.zero_point < g.qmin || g.zero_point > g.qmax) {
    throw core::input_error(
        "{}: invalid grid (scale {}, zero-point {}, range [{}, {}]); the scale must be positive and "
        "the zero-point inside the range",
        op, g.scale, g.zero_point, g.qmin, g.qmax);
  }
}

// The unclamped integer round(x / s) + z, in double as QuantParams::quantize computes it.
double grid_index(float x, const AffineGrid& g) { return std::round(static_cast<double>(x) / g.scale) + g.zero_point; }

// y and the gradient mask (both contiguous, `part`'s shape) of the elements of `part`, in
// one pass: the division and the rounding are the costly part.
void fake_quantize_part(float* y, float* mask, const Tensor& part, const AffineGrid& g) {
  const double lo = g.qmin, hi = g.qmax;
  const float* x = part.data<float>();
  const std::array<Strides, 2> strides{contiguous_strides(part.shape()), part.strides()};
  detail::for_each_run<2>(part.shape(), strides, [&](std::size_t n, detail::Offsets<2> at, detail::Offsets<2> step) {
    // The output is contiguous, so its inner step is 1.
    for (std::size_t i = 0; i < n; ++i) {
      const double t = grid_index(x[at[1] + i * step[1]], g);
      y[at[0] + i] = static_cast<float>((std::clamp(t, lo, hi) - g.zero_point) * g.scale);
      mask[at[0] + i] = t >= lo && t <= hi ? 1.0f : 0.0f;
    }
  });
}

// ---- backward: the clipped straight-through estimator, g * mask -----------------------
void fake_quantize_backward(const Node& node, const Tensor& out, Tensor g) {
  detail::map2_into(grad_slot(node.inputs[0]), out.shape(), g, node.saved, [](float gi, float mi) { return gi * mi; });
}

Tensor finish(const Tensor& x, Tensor out, Tensor mask, const char* op) {
  if (Node* node = record(out, op, fake_quantize_backward, x)) node->saved = std::move(mask);
  return out;
}

}  // namespace

Tensor fake_quantize(const Tensor& x, const AffineGrid& grid) {
  expect_f32(x, "fake_quantize");
  check_grid(grid, "fake_quantize");
  Tensor out = Tensor::empty(x.shape());   // (x's shape)
  Tensor mask = Tensor::empty(x.shape());  // (x's shape) 1 where the gradient passes, else 0
  fake_quantize_part(out.data<float>(), mask.data<float>(), x, grid);
  return finish(x, std::move(out), std::move(mask), "fake_quantize");
}

Tensor fake_quantize_rows(const Tensor& x, std::span<const AffineGrid> rows) {
  expect_f32(x, "fake_quantize_rows");
  if (x.rank() != 2 || x.size(0) != rows.size()) {
    throw core::input_error(
        "fake_quantize_rows: needs a 2-D tensor with one grid per row, got rank {} with {} rows for {} "
        "grids",
        x.rank(), x.rank() == 0 ? 0 : x.size(0), rows.size());
  }
  for (const AffineGrid& g : rows) check_grid(g, "fake_quantize_rows");
  Tensor out = Tensor::empty(x.shape());   // (rows, cols)
  Tensor mask = Tensor::empty(x.shape());  // (rows, cols) 1 where the gradient passes, else 0
  const std::size_t cols = x.size(1);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const Tensor row = Tensor::view_of(x, {cols}, {x.strides()[1]}, x.offset() + r * x.strides()[0]);
    fake_quantize_part(out.data<float>() + r * cols, mask.data<float>() + r * cols, row, rows[r]);
  }
  return finish(x, std::move(out), std::move(mask), "fake_quantize_rows");
}

}  // namespace seatorch::tensor
