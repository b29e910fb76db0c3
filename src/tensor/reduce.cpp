// Reductions: sum_to and max forward and backward, and the composites over axes.
//
// Both kernels read the input in row-major order and address the output through strides
// that are 0 along reduced axes, so "which output does this input element go to" is the
// same strided walk as broadcasting, in reverse.
#include "seatorch/tensor/reduce.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/tensor/autograd.hpp"
#include "seatorch/tensor/elementwise.hpp"
#include "seatorch/tensor/movement.hpp"
#include "strided.hpp"

#include <algorithm>
#include <limits>

namespace seatorch::tensor {
namespace {

// The kept shape (reduced axes become 1) of reducing `shape` over `axes`.
Shape kept_shape(const Shape& shape, const std::vector<int>& axes) {
  Shape kept = shape;
  if (axes.empty()) {
    for (std::size_t d = 0; d < kept.rank(); ++d) kept[d] = 1;
  }
  for (int axis : axes) kept[normalize_axis(axis, shape.rank())] = 1;
  return kept;
}

// The result shape: the kept shape, or the kept shape without the reduced axes.
Shape result_shape(const Shape& shape, const std::vector<int>& axes, bool keepdim) {
  const Shape kept = kept_shape(shape, axes);
  if (keepdim) return kept;
  Shape out;
  for (std::size_t d = 0; d < shape.rank(); ++d) {
    bool reduced = axes.empty();
    for (int axis : axes) reduced = reduced || normalize_axis(axis, shape.rank()) == d;
    if (!reduced) out.push_back(shape[d]);
  }
  return out;
}

// out (contiguous, `shape`, zeroed by the caller or holding earlier sums) += x summed down
// to `shape`. The output strides are 0 along the reduced axes.
void sum_into(float* out, const Shape& shape, const Tensor& x) {
  const float* px = x.data<float>();
  const std::array<Strides, 2> strides{broadcast_strides(shape, contiguous_strides(shape), x.shape()), x.strides()};
  detail::for_each_run<2>(x.shape(), strides, [&](std::size_t n, detail::Offsets<2> at, detail::Offsets<2> step) {
    float* o = out + at[0];
    const float* v = px + at[1];
    if (step[0] == 0) {  // the run is reduced into one output
      float acc = 0.0f;
      for (std::size_t i = 0; i < n; ++i) acc += v[i * step[1]];
      *o += acc;
    } else if (step[0] == 1 && step[1] == 1) {
      for (std::size_t i = 0; i < n; ++i) o[i] += v[i];
    } else {
      for (std::size_t i = 0; i < n; ++i) o[i * step[0]] += v[i * step[1]];
    }
  });
}

// ---- sum_to: backward broadcasts the gradient back over the reduced axes --------------
void sum_to_backward(const Node& node, const Tensor&, Tensor g) {
  const Tensor& x = node.inputs[0];
  accumulate_grad(x, Tensor::view_of(g, x.shape(), broadcast_strides(g.shape(), g.strides(), x.shape()), g.offset()));
}

// Forward of max over the kept shape: values, and the row-major linear index into x of
// each output's first maximum.
struct MaxResult {
  Tensor values;   // (kept) F32
  Tensor indices;  // (kept) I32
};

MaxResult max_kept(const Tensor& x, const Shape& kept, const char* op) {
  expect_f32(x, op);
  if (x.numel() == 0) throw core::input_error("{}: cannot reduce an empty tensor of shape {}", op, x.shape().str());
  if (x.numel() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    throw core::input_error("{}: tensor of {} elements is too large for int32 indices", op, x.numel());
  }
  MaxResult r{Tensor::empty(kept), Tensor::empty(kept, core::DType::kI32)};
  float* values = r.values.data<float>();
  std::int32_t* indices = r.indices.data<std::int32_t>();
  std::fill_n(indices, r.indices.numel(), -1);
  const float* px = x.data<float>();
  const std::array<Strides, 3> strides{broadcast_strides(kept, contiguous_strides(kept), x.shape()), x.strides(),
                                       contiguous_strides(x.shape())};
  detail::for_each_run<3>(x.shape(), strides, [&](std::size_t n, detail::Offsets<3> at, detail::Offsets<3> step) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t o = at[0] + i * step[0];
      const float v = px[at[1] + i * step[1]];
      if (indices[o] < 0 || v > values[o]) {  // strict: the first maximum wins ties
        values[o] = v;
        indices[o] = static_cast<std::int32_t>(at[2] + i * step[2]);
      }
    }
  });
  return r;
}

// ---- max: backward sends each gradient to the element that was the maximum -----------
void max_backward(const Node& node, const Tensor&, Tensor g) {
  float* dx = zeroed_grad_slot(node.inputs[0]);
  const std::int32_t* indices = node.saved.data<std::int32_t>();
  const float* pg = g.data<float>();
  for (std::size_t k = 0; k < g.numel(); ++k) dx[indices[k]] += pg[k];
}

Tensor drop_reduced(const Tensor& kept_result, const Tensor& x, const std::vector<int>& axes, bool keepdim) {
  if (keepdim) return kept_result;
  return reshape(kept_result, result_shape(x.shape(), axes, keepdim));
}

}  // namespace

Tensor sum_to(const Tensor& x, const Shape& shape) {
  expect_f32(x, "sum_to");
  broadcast_strides(shape, contiguous_strides(shape), x.shape());  // throws if it does not fit
  Tensor out = Tensor::zeros(shape);
  sum_into(out.data<float>(), shape, x);
  record(out, "sum_to", sum_to_backward, x);
  return out;
}

Tensor sum(const Tensor& x, const std::vector<int>& axes, bool keepdim) {
  return drop_reduced(sum_to(x, kept_shape(x.shape(), axes)), x, axes, keepdim);
}

Tensor mean(const Tensor& x, const std::vector<int>& axes, bool keepdim) {
  const Shape kept = kept_shape(x.shape(), axes);
  const std::size_t count = x.numel() / std::max<std::size_t>(kept.numel(), 1);
  return sum(x, axes, keepdim) * (1.0f / static_cast<float>(count));
}

Tensor max(const Tensor& x, const std::vector<int>& axes, bool keepdim) {
  MaxResult r = max_kept(x, kept_shape(x.shape(), axes), "max");
  if (Node* node = record(r.values, "max", max_backward, x)) node->saved = std::move(r.indices);
  return drop_reduced(r.values, x, axes, keepdim);
}

Tensor argmax(const Tensor& x, int axis) {
  const std::vector<int> axes{axis};
  MaxResult r = max_kept(x, kept_shape(x.shape(), axes), "argmax");
  // Turn linear indices into positions along the axis: (linear / stride) % size.
  const std::size_t a = normalize_axis(axis, x.rank());
  const std::size_t stride = contiguous_strides(x.shape())[a];
  std::int32_t* indices = r.indices.data<std::int32_t>();
  for (std::size_t k = 0; k < r.indices.numel(); ++k) {
    indices[k] = static_cast<std::int32_t>((static_cast<std::size_t>(indices[k]) / stride) % x.shape()[a]);
  }
  return Tensor::view_of(r.indices, result_shape(x.shape(), axes, false),
                         contiguous_strides(result_shape(x.shape(), axes, false)), 0);
}

}  // namespace seatorch::tensor
