// Dropout as mul by a random mask.
#include "seatorch/tensor/dropout.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/tensor/elementwise.hpp"

namespace seatorch::tensor {

Tensor dropout(const Tensor& x, double p, bool training, core::Rng& rng) {
  if (!(p >= 0.0 && p < 1.0)) throw core::input_error("dropout probability {} is outside [0, 1)", p);
  expect_f32(x, "dropout");
  if (!training || p == 0.0) return x;
  const auto keep_scale = static_cast<float>(1.0 / (1.0 - p));
  Tensor mask = Tensor::empty(x.shape());  // (x's shape) 0 or 1/(1-p)
  float* m = mask.data<float>();
  for (std::size_t i = 0; i < mask.numel(); ++i) m[i] = rng.uniform() < p ? 0.0f : keep_scale;
  return x * mask;
}

}  // namespace seatorch::tensor
