// Reductions: values against loops, keepdim shapes, max's tie rule, argmax, and gradients
// against finite differences (including strided inputs).
#include "gradcheck.hpp"

using namespace seatorch::tensor;
using testing::check_gradients;

namespace {

Tensor input(const Shape& shape, std::uint64_t seed) {
  seatorch::core::Rng rng(seed);
  return testing::random_tensor(shape, rng);
}

}  // namespace

TEST_CASE("sum mean and max over axes match loops and honour keepdim", "[tensor]") {
  const Tensor x = input({2, 3, 4}, 1);
  const Tensor s = sum(x, {0, 2});
  const Tensor sk = sum(x, {0, 2}, true);
  const Tensor m = mean(x, {-1});
  const Tensor mx = max(x, {1});
  REQUIRE(s.shape() == Shape{3});
  REQUIRE(sk.shape() == Shape{1, 3, 1});
  REQUIRE(m.shape() == Shape{2, 3});
  REQUIRE(mx.shape() == Shape{2, 4});
  for (std::size_t j = 0; j < 3; ++j) {
    double expected = 0.0;
    for (std::size_t i = 0; i < 2; ++i) {
      for (std::size_t k = 0; k < 4; ++k) expected += x.at({i, j, k});
    }
    INFO("sum over axes 0 and 2 at " << j);
    CHECK(s.at({j}) == Approx(expected).margin(1e-6));
    CHECK(sk.at({0, j, 0}) == s.at({j}));
  }
  for (std::size_t i = 0; i < 2; ++i) {
    for (std::size_t k = 0; k < 4; ++k) {
      float best = x.at({i, 0, k});
      for (std::size_t j = 1; j < 3; ++j) best = std::max(best, x.at({i, j, k}));
      INFO("max at [" << i << "," << k << "]");
      CHECK(mx.at({i, k}) == best);
    }
  }
  CHECK(sum(x).rank() == 0);
  CHECK(mean(x).item() == Approx(sum(x).item() / 24.0f));
}

TEST_CASE("max sends the gradient to the first of tied maxima and argmax agrees", "[tensor]") {
  Tensor x = Tensor::from({1.0f, 5.0f, 5.0f, -2.0f, 7.0f, 7.0f}, {2, 3});
  x.set_requires_grad(true);
  sum(max(x, {1})).backward();
  testing::check_values(x.grad(), {0, 1, 0, 0, 1, 0});
  CHECK(argmax(x, 1).values<std::int32_t>() == std::vector<std::int32_t>{1, 1});
  CHECK(argmax(x, 0).values<std::int32_t>() == std::vector<std::int32_t>{0, 1, 1});
  CHECK(argmax(transpose(x, 0, 1), 0).values<std::int32_t>() == std::vector<std::int32_t>{1, 1});
}

TEST_CASE("reduction gradients match finite differences", "[tensor]") {
  check_gradients([](const auto& in) { return sum(in[0], {1}); }, {input({3, 4}, 2)});
  check_gradients([](const auto& in) { return sum(in[0], {0, 2}, true); }, {input({2, 3, 4}, 3)});
  check_gradients([](const auto& in) { return mean(transpose(in[0], 0, 1), {0}); }, {input({3, 4}, 4)});
  check_gradients([](const auto& in) { return mean(in[0]); }, {input({2, 5}, 5)});
  check_gradients([](const auto& in) { return sum_to(in[0], {1, 4}); }, {input({3, 4}, 6)});
  // Hand-picked values at least 0.1 apart along each reduced axis, so no finite-difference
  // step (kFdStep) crosses a tie.
  check_gradients([](const auto& in) { return max(in[0], {0}); },
                  {Tensor::from({0.1f, 0.9f, -0.4f, 0.5f, 0.3f, 0.6f}, {2, 3})});
  check_gradients([](const auto& in) { return max(transpose(in[0], 0, 1), {1}, true); },
                  {Tensor::from({0.1f, 0.9f, -0.4f, 0.5f, 0.3f, 0.6f}, {2, 3})});
}
