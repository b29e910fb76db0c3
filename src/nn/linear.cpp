// Linear: initialization in the scalar engine's order, forward through the fused linear op.
#include "seatorch/nn/linear.hpp"

#include "seatorch/tensor/matmul.hpp"

#include <cmath>

namespace seatorch::nn {
namespace {

// U(-bound, bound) for every element, drawn in the order of index_of(0), index_of(1), ...:
// the storage position of the n-th element drawn.
template <class IndexOf>
tensor::Tensor uniform_parameter(const tensor::Shape& shape, double bound, core::Rng& rng, IndexOf index_of) {
  tensor::Tensor t = tensor::Tensor::empty(shape);
  float* p = t.data<float>();
  for (std::size_t n = 0; n < t.numel(); ++n) p[index_of(n)] = static_cast<float>(rng.uniform(-bound, bound));
  t.set_requires_grad(true);
  return t;
}

}  // namespace

Linear::Linear(std::size_t in, std::size_t out, core::Rng& rng) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  // W drawn row by row, (out, in), into its transpose: element (j, i) of W at [i][j].
  weight_t = uniform_parameter({in, out}, bound, rng, [&](std::size_t n) { return (n % in) * out + n / in; });
  bias = uniform_parameter({out}, bound, rng, [](std::size_t n) { return n; });
}

tensor::Tensor Linear::forward(const tensor::Tensor& x) const {
  return tensor::linear(x, weight_t, bias, tensor::WeightLayout::kInOut);
}

tensor::Tensor Linear::forward_relu(const tensor::Tensor& x) const {
  return tensor::linear_relu(x, weight_t, bias, tensor::WeightLayout::kInOut);
}

}  // namespace seatorch::nn
