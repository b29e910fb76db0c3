// Movement ops: each view's forward (new geometry) and backward (the inverse movement of
// the gradient), side by side.
#include "seatorch/tensor/movement.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/tensor/autograd.hpp"
#include "seatorch/tensor/reduce.hpp"
#include "strided.hpp"

#include <fmt/ranges.h>

namespace seatorch::tensor {
namespace {

// A node attribute list holding a permutation.
Dims as_dims(const std::vector<std::size_t>& values) { return Dims(std::span(values)); }

// ---- reshape: the gradient is reshaped back (a view of it, so usually no copy) --------
void reshape_backward(const Node& node, const Tensor&, Tensor g) {
  const Tensor& x = node.inputs[0];
  Tensor view = Tensor::view_of(g, x.shape(), contiguous_strides(x.shape()), g.offset());
  g = Tensor();  // let the view be the storage's only owner, so the gradient can adopt it
  accumulate_grad(x, std::move(view));
}

// ---- permute: the gradient is permuted back by the inverse permutation ----------------
void permute_backward(const Node& node, const Tensor&, Tensor g) {
  const Tensor& x = node.inputs[0];
  Strides strides = x.strides();
  for (std::size_t d = 0; d < node.attrs.rank(); ++d) strides[node.attrs[d]] = g.strides()[d];
  accumulate_grad(x, Tensor::view_of(g, x.shape(), strides, g.offset()));
}

// ---- slice: the gradient lands in its window of an otherwise zero gradient ------------
void slice_backward(const Node& node, const Tensor& out, Tensor g) {
  const Tensor& x = node.inputs[0];
  const std::size_t axis = node.attrs[0];
  const std::size_t begin = node.attrs[1];
  const Strides dense = contiguous_strides(x.shape());
  float* window = zeroed_grad_slot(x) + begin * dense[axis];
  const float* pg = g.data<float>();
  const std::array<Strides, 2> strides{dense, g.strides()};
  detail::for_each_run<2>(out.shape(), strides, [&](std::size_t n, detail::Offsets<2> at, detail::Offsets<2> step) {
    for (std::size_t i = 0; i < n; ++i) window[at[0] + i * step[0]] += pg[at[1] + i * step[1]];
  });
}

// ---- expand: the gradient is summed over the repeated axes ----------------------------
void expand_backward(const Node& node, const Tensor&, Tensor g) {
  accumulate_grad(node.inputs[0], sum_to(g, node.inputs[0].shape()));
}

// ---- contiguous: a copy, so the gradient passes through unchanged ---------------------
void contiguous_backward(const Node& node, const Tensor&, Tensor g) { accumulate_grad(node.inputs[0], std::move(g)); }

}  // namespace

Tensor reshape(const Tensor& x, const Shape& shape) {
  if (shape.numel() != x.numel()) {
    throw core::input_error("cannot reshape {} ({} elements) to {} ({} elements)", x.shape().str(), x.numel(),
                            shape.str(), shape.numel());
  }
  if (!x.is_contiguous()) return reshape(contiguous(x), shape);
  Tensor out = Tensor::view_of(x, shape, contiguous_strides(shape), x.offset());
  record(out, "reshape", reshape_backward, x);
  return out;
}

Tensor permute(const Tensor& x, const std::vector<std::size_t>& perm) {
  if (perm.size() != x.rank()) {
    throw core::input_error("permutation of {} axes for a tensor of rank {}", perm.size(), x.rank());
  }
  std::vector<bool> seen(perm.size(), false);
  Shape shape;
  Strides strides;
  for (std::size_t d : perm) {
    if (d >= perm.size() || seen[d])
      throw core::input_error("({}) is not a permutation of the axes of {}", fmt::join(perm, ", "), x.shape().str());
    seen[d] = true;
    shape.push_back(x.shape()[d]);
    strides.push_back(x.strides()[d]);
  }
  Tensor out = Tensor::view_of(x, shape, strides, x.offset());
  if (Node* node = record(out, "permute", permute_backward, x)) node->attrs = as_dims(perm);
  return out;
}

Tensor transpose(const Tensor& x, int a, int b) {
  std::vector<std::size_t> perm(x.rank());
  for (std::size_t d = 0; d < perm.size(); ++d) perm[d] = d;
  std::swap(perm[normalize_axis(a, x.rank())], perm[normalize_axis(b, x.rank())]);
  return permute(x, perm);
}

Tensor slice(const Tensor& x, int axis, std::size_t begin, std::size_t end) {
  const std::size_t a = normalize_axis(axis, x.rank());
  if (begin > end || end > x.shape()[a]) {
    throw core::input_error("slice [{}, {}) is outside axis {} of size {}", begin, end, a, x.shape()[a]);
  }
  Shape shape = x.shape();
  shape[a] = end - begin;
  // An empty slice keeps the offset in range (begin may equal the axis size).
  const std::size_t offset = shape.numel() == 0 ? x.offset() : x.offset() + begin * x.strides()[a];
  Tensor out = Tensor::view_of(x, shape, x.strides(), offset);
  if (Node* node = record(out, "slice", slice_backward, x)) node->attrs = Dims{a, begin};
  return out;
}

Tensor expand(const Tensor& x, const Shape& shape) {
  Tensor out = Tensor::view_of(x, shape, broadcast_strides(x.shape(), x.strides(), shape), x.offset());
  record(out, "expand", expand_backward, x);
  return out;
}

Tensor contiguous(const Tensor& x) {
  if (x.is_contiguous()) return x;
  Tensor out = Tensor::empty(x.shape(), x.dtype());
  detail::copy_to_dense(x, out.storage()->data());
  record(out, "contiguous", contiguous_backward, x);
  return out;
}

}  // namespace seatorch::tensor
