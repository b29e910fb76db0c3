// Dropout: identity in evaluation, the drop rate and the 1/(1-p) scale in training,
// reproducibility from the seed, and the gradient g * mask.
#include "gradcheck.hpp"

#include "seatorch/core/error.hpp"

using namespace seatorch::tensor;

TEST_CASE("dropout is the identity in evaluation and scales survivors in training", "[tensor]") {
  seatorch::core::Rng rng(5);
  const Tensor x = Tensor::full({100, 100}, 2.0f);
  CHECK(dropout(x, 0.5, false, rng).impl() == x.impl());
  CHECK(dropout(x, 0.0, true, rng).impl() == x.impl());
  const std::vector<float> y = dropout(x, 0.25, true, rng).values();
  std::size_t dropped = 0;
  for (float v : y) {
    if (v == 0.0f) {
      ++dropped;
    } else {
      REQUIRE(v == Approx(2.0f / 0.75f));
    }
  }
  // 10^4 Bernoulli(0.25) draws: the standard deviation of the count is ~43.
  CHECK(dropped > 2500 - 250);
  CHECK(dropped < 2500 + 250);
  CHECK_THROWS_AS(dropout(x, 1.0, true, rng), seatorch::core::InputError);
  CHECK_THROWS_AS(dropout(x, -0.1, true, rng), seatorch::core::InputError);
}

TEST_CASE("dropout masks repeat for a seed and its gradient is the mask", "[tensor]") {
  seatorch::core::Rng a(9), b(9);
  Tensor x = Tensor::full({8, 16}, 1.0f);
  x.set_requires_grad(true);
  const Tensor ya = dropout(x, 0.5, true, a);
  const Tensor yb = dropout(x, 0.5, true, b);
  CHECK(ya.values() == yb.values());
  sum(ya * 3.0f).backward();
  const std::vector<float> grad = x.grad().values();
  const std::vector<float> mask = ya.values();  // x is all ones, so y is the mask
  for (std::size_t i = 0; i < grad.size(); ++i) {
    INFO("element " << i);
    CHECK(grad[i] == 3.0f * mask[i]);
  }
}
