// Linear: initialization in the scalar engine's order, forward through the fused linear op.
#include "seatorch/nn/linear.hpp"

#include "seatorch/tensor/matmul.hpp"

#include <cmath>

namespace seatorch::nn {
namespace {

tensor::Tensor uniform_parameter(const tensor::Shape& shape, double bound, core::Rng& rng) {
  tensor::Tensor t = tensor::Tensor::empty(shape);
  float* p = t.data<float>();
  for (std::size_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(rng.uniform(-bound, bound));
  t.set_requires_grad(true);
  return t;
}

}  // namespace

Linear::Linear(std::size_t in, std::size_t out, core::Rng& rng) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  weight = uniform_parameter({out, in}, bound, rng);
  bias = uniform_parameter({out}, bound, rng);
}

tensor::Tensor Linear::forward(const tensor::Tensor& x) const { return tensor::linear(x, weight, bias); }

tensor::Tensor Linear::forward_relu(const tensor::Tensor& x) const { return tensor::linear_relu(x, weight, bias); }

}  // namespace seatorch::nn
