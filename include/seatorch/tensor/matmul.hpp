// Matrix products with autograd, through the kernels' two entry points: kernels::matmul
// (kernels/matmul.hpp) with its transpose flags (forward A*B, backward G*B^T and A^T*G) and
// its accumulate flag, so gradients land directly in the gradient buffers and no dense
// transpose is ever materialised; and kernels::sparse_matmul for a layer whose input is data
// and mostly zeros (a batch of digits), whose backward builds the transpose of the input's
// nonzeros (kernels/sparse_matmul.hpp).
//
// Kernels: 2-D F32 operands in row-major (strides (ld, 1)) or column-major (strides (1, ld))
// layout go to the kernel as they are; a transposed view is just the other flag. Any other
// layout is made contiguous first (a recorded copy). Outputs are contiguous.
// linear() is the fused y = x W^T + b of nn.Linear: the bias is written first and the
// product accumulated onto it, and its backward needs no transposed copy of W. The bias
// gradient is a column sum of the output's gradient, split across threads by columns.
#pragma once

#include "seatorch/tensor/tensor.hpp"

namespace seatorch::tensor {

// (m, k) x (k, n) -> (m, n)
Tensor matmul(const Tensor& a, const Tensor& b);

// How linear's weight tensor holds W: as PyTorch's (out, in), or as Wᵀ (in, out), the rows
// that the forward's product multiplies. nn::Linear keeps Wᵀ: the first layer's sparse
// forward then reads its rows in place instead of packing them every step, and its weight
// gradient comes out in rows instead of through register transposes (DECISIONS 83). Either
// way every output and gradient element is the same float operations, so the bits agree.
enum class WeightLayout : bool { kOutIn, kInOut };

// x (batch, in), weight (out, in) (or (in, out) with kInOut), bias (out) or undefined ->
// (batch, out); the weight's gradient has the weight tensor's shape.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = {},
              WeightLayout layout = WeightLayout::kOutIn);

// relu(linear(x, weight, bias)) in one op, the same floats: the bias and the ReLU are applied
// to each block of the output as its product leaves it, and the backward masks the incoming
// gradient and sums the bias gradient in one pass (kernels::Epilogue).
Tensor linear_relu(const Tensor& x, const Tensor& weight, const Tensor& bias = {},
                   WeightLayout layout = WeightLayout::kOutIn);

}  // namespace seatorch::tensor
