// Test helpers for the tensor engine: random tensors and a gradient check against central
// finite differences.
//
// check_gradients(f, inputs) turns f's output into the scalar L = sum_j out_j * w_j with
// fixed random weights w (so every output element matters, each with its own weight),
// backpropagates L, and compares each input element's gradient with
// (L(x + h) - L(x - h)) / 2h. Forward passes run in float, so the oracle has float round-off:
// L is summed in double to keep it to the op's own rounding, the step is large enough that
// round-off stays below kFdTolerance, and small enough that the truncation error h^2 f'''/6
// does too for the smooth ops at the test points (kinks of relu and max are kept > h away).
#pragma once

#include "seatorch/core/rng.hpp"
#include "seatorch/tensor/ops.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <vector>

namespace seatorch::tensor::testing {

inline constexpr float kFdStep = 1e-2f;
inline constexpr double kFdTolerance = 2e-3;  // absolute, plus kFdRelative of the value
inline constexpr double kFdRelative = 1e-2;

// A contiguous tensor of uniform values in [lo, hi).
inline Tensor random_tensor(const Shape& shape, core::Rng& rng, double lo = -1.0, double hi = 1.0) {
  std::vector<float> values(shape.numel());
  for (float& v : values) v = static_cast<float>(rng.uniform(lo, hi));
  return Tensor::from<float>(values, shape);
}

// Uniform values whose magnitude is at least `gap`, so kinks at 0 stay away.
inline Tensor random_away_from_zero(const Shape& shape, core::Rng& rng, double gap = 0.1) {
  std::vector<float> values(shape.numel());
  for (float& v : values) {
    const double u = rng.uniform(gap, 1.0);
    v = static_cast<float>(rng.uniform() < 0.5 ? -u : u);
  }
  return Tensor::from<float>(values, shape);
}

using TensorFn = std::function<Tensor(const std::vector<Tensor>&)>;

inline void check_gradients(const TensorFn& f, std::vector<Tensor> inputs) {
  for (Tensor& x : inputs) x.set_requires_grad(true);
  const Tensor out = f(inputs);
  core::Rng rng(1234);
  const Tensor weights = random_tensor(out.shape(), rng);
  sum(out * weights).backward();

  const std::vector<float> w = weights.values();
  auto loss = [&] {
    const NoGradGuard no_grad;
    const std::vector<float> y = f(inputs).values();
    double total = 0.0;
    for (std::size_t j = 0; j < y.size(); ++j) total += static_cast<double>(y[j]) * w[j];
    return total;
  };
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    REQUIRE(inputs[i].grad().defined());
    const std::vector<float> grad = inputs[i].grad().values();
    float* x = inputs[i].data<float>();
    for (std::size_t k = 0; k < inputs[i].numel(); ++k) {
      const float saved = x[k];
      x[k] = saved + kFdStep;
      const double up = loss();
      x[k] = saved - kFdStep;
      const double down = loss();
      x[k] = saved;
      const double numeric = (up - down) / (2.0 * static_cast<double>(kFdStep));
      INFO("input " << i << " element " << k << ": autograd " << grad[k] << ", finite difference " << numeric);
      CHECK(grad[k] == Approx(numeric).margin(kFdTolerance).epsilon(kFdRelative));
    }
  }
}

// Checks every element of `t` against `expected` (row-major) within `tolerance`.
inline void check_values(const Tensor& t, const std::vector<float>& expected, double tolerance = 1e-6) {
  const std::vector<float> got = t.values();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", expected " << expected[i]);
    CHECK(got[i] == Approx(expected[i]).margin(tolerance));
  }
}

}  // namespace seatorch::tensor::testing
