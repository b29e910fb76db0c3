// Movement ops with autograd: views that change shape, strides or offset and never copy,
// plus contiguous(), the one op here that may copy.
//
// Kernels: reshape, permute, transpose, slice and expand only compute new geometry over
// the same storage (any dtype). contiguous() returns its input when it is already dense
// and otherwise copies it (any strides, any dtype). reshape of non-contiguous data goes
// through contiguous() first, as PyTorch's reshape does.
// Deliberately not here: pad, flip or negative strides; no MLP needs them.
#pragma once

#include "seatorch/tensor/tensor.hpp"

#include <cstddef>
#include <vector>

namespace seatorch::tensor {

Tensor reshape(const Tensor& x, const Shape& shape);
// Reorders the dimensions: dimension d of the result is dimension perm[d] of x.
Tensor permute(const Tensor& x, const std::vector<std::size_t>& perm);
Tensor transpose(const Tensor& x, int a, int b);
// Elements [begin, end) along `axis`.
Tensor slice(const Tensor& x, int axis, std::size_t begin, std::size_t end);
// Broadcasts x to `shape` (NumPy rules) with stride 0 along the repeated axes.
Tensor expand(const Tensor& x, const Shape& shape);
Tensor contiguous(const Tensor& x);

}  // namespace seatorch::tensor
