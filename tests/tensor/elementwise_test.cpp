// Elementwise ops: forward values against their definitions, and every gradient (with
// broadcasting and with strided inputs) against finite differences.
#include "gradcheck.hpp"

#include "seatorch/core/error.hpp"

#include <cmath>

using namespace seatorch::tensor;
using testing::check_gradients;

namespace {

Tensor input(const Shape& shape, std::uint64_t seed, double lo = -1.0, double hi = 1.0) {
  seatorch::core::Rng rng(seed);
  return testing::random_tensor(shape, rng, lo, hi);
}

}  // namespace

TEST_CASE("binary ops broadcast like NumPy in their forward values", "[tensor]") {
  const Tensor a = input({3, 4}, 1);
  const Tensor b = input({4}, 2, 0.5, 2.0);
  const Tensor c = input({3, 1}, 3, 0.5, 2.0);
  const Tensor sum_ab = a + b;
  const Tensor diff_ca = c - a;
  const Tensor prod_bc = b * c;  // (4) x (3, 1) -> (3, 4)
  const Tensor quot_ab = a / b;
  REQUIRE(prod_bc.shape() == Shape{3, 4});
  for (std::size_t i = 0; i < 3; ++i) {
    for (std::size_t j = 0; j < 4; ++j) {
      INFO("element [" << i << "," << j << "]");
      CHECK(sum_ab.at({i, j}) == a.at({i, j}) + b.at({j}));
      CHECK(diff_ca.at({i, j}) == c.at({i, 0}) - a.at({i, j}));
      CHECK(prod_bc.at({i, j}) == b.at({j}) * c.at({i, 0}));
      CHECK(quot_ab.at({i, j}) == a.at({i, j}) / b.at({j}));
    }
  }
  testing::check_values(2.0f - Tensor::from({1.0f, 3.0f}, {2}), {1.0f, -1.0f});
  CHECK_THROWS_AS(a + input({3}, 4), seatorch::core::InputError);
  CHECK_THROWS_AS(a + Tensor::zeros({3, 4}, seatorch::core::DType::kI32), seatorch::core::InputError);
}

TEST_CASE("unary ops match their definitions including sigmoid at large magnitudes", "[tensor]") {
  const Tensor x = Tensor::from({-100.0f, -1.5f, 0.0f, 0.7f, 100.0f}, {5});
  const std::vector<float> v = x.values();
  std::vector<float> r, s, t, e;
  for (float xi : v) {
    r.push_back(xi > 0 ? xi : 0.0f);
    s.push_back(static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(xi)))));
    t.push_back(std::tanh(xi));
    e.push_back(std::exp(std::min(xi, 10.0f)));
  }
  testing::check_values(relu(x), r);
  testing::check_values(sigmoid(x), s);
  testing::check_values(tanh(x), t);
  testing::check_values(exp(slice(x, 0, 0, 4)), {e[0], e[1], e[2], e[3]}, 1e-6);
  testing::check_values(log(Tensor::from({1.0f, 2.0f}, {2})), {0.0f, std::log(2.0f)});
}

TEST_CASE("add sub mul div gradients match finite differences with broadcasting", "[tensor]") {
  const std::vector<std::pair<Shape, Shape>> shapes{
      {{3, 4}, {3, 4}}, {{3, 4}, {4}}, {{3, 1}, {1, 4}}, {{2, 3, 4}, {3, 1}}, {{}, {2, 3}}};
  for (const auto& [sa, sb] : shapes) {
    INFO("shapes " << sa.str() << " and " << sb.str());
    check_gradients([](const auto& in) { return in[0] + in[1]; }, {input(sa, 1), input(sb, 2)});
    check_gradients([](const auto& in) { return in[0] - in[1]; }, {input(sa, 3), input(sb, 4)});
    check_gradients([](const auto& in) { return in[0] * in[1]; }, {input(sa, 5), input(sb, 6)});
    check_gradients([](const auto& in) { return in[0] / in[1]; }, {input(sa, 7), input(sb, 8, 0.5, 2.0)});
  }
}

TEST_CASE("unary gradients match finite differences on strided inputs", "[tensor]") {
  seatorch::core::Rng rng(11);
  const Tensor away = testing::random_away_from_zero({4, 3}, rng);
  // Each op reads a transposed (strided) view of its input.
  auto through_transpose = [](Tensor (*op)(const Tensor&)) {
    return [op](const std::vector<Tensor>& in) { return op(transpose(in[0], 0, 1)); };
  };
  check_gradients(through_transpose(relu), {away});
  check_gradients(through_transpose(sigmoid), {input({4, 3}, 12, -3.0, 3.0)});
  check_gradients(through_transpose(tanh), {input({4, 3}, 13, -2.0, 2.0)});
  check_gradients(through_transpose(exp), {input({4, 3}, 14)});
  check_gradients(through_transpose(log), {input({4, 3}, 15, 0.5, 3.0)});
}

TEST_CASE("an input used by several ops receives the sum of their gradients", "[tensor]") {
  check_gradients([](const auto& in) { return tanh(in[0]) * in[0] + sigmoid(in[0] * in[1]) / in[1]; },
                  {input({2, 3}, 21), input({3}, 22, 0.5, 1.5)});
}
