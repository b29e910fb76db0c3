// Reductions with autograd: sum, mean and max over axes, and sum_to (the reduction that
// undoes broadcasting, used by every broadcasting op's backward).
//
// Kernels: handle any strides on the input; outputs are new contiguous tensors. Sums run in
// float, in row-major order of the input, so results are reproducible bit for bit.
// Primitives: sum_to and max (over kept dimensions); sum, mean and the axis forms are
// composites (sum_to plus a reshape that drops the reduced dimensions, times 1/n for mean).
// `axes` empty means every axis. max sends each output's gradient to the first maximal
// element, as PyTorch's max(dim) does. argmax is not differentiable.
#pragma once

#include "seatorch/tensor/tensor.hpp"

#include <vector>

namespace seatorch::tensor {

// Sums `x` down to `shape`, which must broadcast to x's shape (e.g. (B, N) -> (N) or (1, N)).
Tensor sum_to(const Tensor& x, const Shape& shape);

Tensor sum(const Tensor& x, const std::vector<int>& axes = {}, bool keepdim = false);
Tensor mean(const Tensor& x, const std::vector<int>& axes = {}, bool keepdim = false);
Tensor max(const Tensor& x, const std::vector<int>& axes = {}, bool keepdim = false);

// Index of the first maximum along `axis` (I32, that axis removed).
Tensor argmax(const Tensor& x, int axis);

}  // namespace seatorch::tensor
