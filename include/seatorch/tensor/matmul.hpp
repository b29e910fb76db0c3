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

#include <cstddef>
#include <cstdint>

namespace seatorch::tensor {

// (m, k) x (k, n) -> (m, n)
Tensor matmul(const Tensor& a, const Tensor& b);

// How linear's weight tensor holds W: as PyTorch's (out, in), or as Wᵀ (in, out), the rows
// that the forward's product multiplies. nn::Linear keeps Wᵀ: the first layer's sparse
// forward then reads its rows in place instead of packing them every step, and its weight
// gradient comes out in rows instead of through register transposes (DECISIONS 83). Either
// way every output and gradient element is the same float operations, so the bits agree.
//
// kInOutPanels holds Wᵀ's columns in panels, (panels, in, width): panel p is the (in, width)
// block of Wᵀ's columns [p * width, (p + 1) * width), row-major. Each product then runs
// panel by panel, the panels split across threads, so that on two threads each core
// multiplies by, takes the gradient of and updates only its own panels' lines: split by
// columns of one row-major Wᵀ, each core read half of every row that the other's update then
// wrote, which took the update on two far-apart vCPUs three times one thread's time
// (DECISIONS 91, 92). The output and the weight gradient are the same floats as kInOut's; the
// input's gradient (a sum over the outputs) is summed panel by panel, so its bits differ from
// kInOut's, but not between thread counts. nn::Linear holds the input layer this way, whose
// input (data) needs no gradient.
enum class WeightLayout : std::uint8_t { kOutIn, kInOut, kInOutPanels };

// The shape (out, in) of the W that a weight tensor of shape `held` holds in `layout` (2-D,
// or 3-D for kInOutPanels).
Shape out_in_shape(const Shape& held, WeightLayout layout);

// W (out, in) from a weight tensor held in `layout`: the tensor itself, its transpose, or
// its panels put back in rows (a copy); recorded, so a gradient flows back to the tensor.
Tensor weight_out_in(const Tensor& weight, WeightLayout layout);
// W's (out, in) values, row-major, copied from a weight tensor held in `layout` straight into
// `out` (out * in floats), not recorded: weight_out_in's values without the copy its panels
// take to be put in rows (the float evaluator's copy of a live model, DECISIONS 96).
void copy_out_in(const Tensor& weight, WeightLayout layout, std::span<float> out);
// The inverse, a contiguous tensor that holds W (out, in) in `layout`, not recorded; for
// kInOutPanels in panels of `width` columns (out a multiple of it).
Tensor weight_held(const Tensor& w, WeightLayout layout, std::size_t width = 0);

// x (batch, in), weight (out, in) (or (in, out) with kInOut, (panels, in, width) with
// kInOutPanels), bias (out) or undefined -> (batch, out); the weight's gradient has the
// weight tensor's shape.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = {},
              WeightLayout layout = WeightLayout::kOutIn);

// relu(linear(x, weight, bias)) in one op, the same floats: the bias and the ReLU are applied
// to each block of the output as its product leaves it, and the backward masks the incoming
// gradient and sums the bias gradient in one pass (kernels::Epilogue).
Tensor linear_relu(const Tensor& x, const Tensor& weight, const Tensor& bias = {},
                   WeightLayout layout = WeightLayout::kOutIn);

}  // namespace seatorch::tensor
