// Linear: initialization in the scalar engine's order, forward through the fused linear op.
#include "seatorch/nn/linear.hpp"

#include "seatorch/tensor/matmul.hpp"

#include <cmath>

namespace seatorch::nn {
namespace {

// U(-bound, bound) for every element, drawn in row-major order; not yet a parameter.
tensor::Tensor uniform_tensor(const tensor::Shape& shape, double bound, core::Rng& rng) {
  tensor::Tensor t = tensor::Tensor::empty(shape);
  float* p = t.data<float>();
  for (std::size_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(rng.uniform(-bound, bound));
  return t;
}

}  // namespace

Linear::Linear(std::size_t in, std::size_t out, core::Rng& rng, bool input_layer)
    : layout(input_layer && out > kWeightPanel && out % kWeightPanel == 0 ? tensor::WeightLayout::kInOutPanels
                                                                          : tensor::WeightLayout::kInOut) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  // W drawn row by row, (out, in), as the scalar engine draws it, then held in `layout`.
  weight_t = tensor::weight_held(uniform_tensor({out, in}, bound, rng), layout, kWeightPanel);
  weight_t.set_requires_grad(true);
  bias = uniform_tensor({out}, bound, rng);
  bias.set_requires_grad(true);
}

tensor::Tensor Linear::forward(const tensor::Tensor& x) const { return tensor::linear(x, weight_t, bias, layout); }

tensor::Tensor Linear::forward_relu(const tensor::Tensor& x) const {
  return tensor::linear_relu(x, weight_t, bias, layout);
}

}  // namespace seatorch::nn
