// Scalar MLP and losses: shapes, PyTorch-style init bounds, cross-entropy against its
// closed form (value and softmax - onehot gradient), and whole-network gradients against
// finite differences.
#include "seatorch/scalar/loss.hpp"
#include "seatorch/scalar/mlp.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <vector>

namespace st = seatorch::scalar;

TEST_CASE("Mlp has PyTorch's parameter layout and init bounds", "[scalar]") {
  st::ScalarGraph g;
  seatorch::core::Rng rng(7);
  const std::array<std::size_t, 3> sizes{5, 3, 2};
  const st::Mlp mlp(g, sizes, st::Activation::kRelu, rng);
  const std::vector<st::Value> params = mlp.parameters();
  REQUIRE(params.size() == 5 * 3 + 3 + 3 * 2 + 2);
  for (std::size_t i = 0; i < params.size(); ++i) {
    const double fan_in = i < 18 ? 5.0 : 3.0;
    INFO("parameter " << i << " = " << params[i].data());
    CHECK(std::abs(params[i].data()) <= 1.0 / std::sqrt(fan_in));
    if (i > 0) CHECK(params[i].index() > params[i - 1].index());  // drawn in layout order
  }
}

TEST_CASE("cross_entropy equals logsumexp - logit and its gradient is softmax - onehot", "[scalar]") {
  st::ScalarGraph g;
  const std::vector<double> raw{2.0, -1.0, 0.5, 800.0};  // 800 would overflow a naive exp
  std::vector<st::Value> logits;
  for (double v : raw) logits.push_back(g.leaf(v));
  const std::size_t target = 2;
  const st::Value loss = st::cross_entropy(logits, target);
  g.backward(loss);
  double denom = 0.0;
  for (double v : raw) denom += std::exp(v - 800.0);
  CHECK(loss.data() == Approx(800.0 + std::log(denom) - raw[target]));
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const double expected = std::exp(raw[i] - 800.0) / denom - (i == target ? 1.0 : 0.0);
    INFO("logit " << i << ": autograd " << logits[i].grad() << ", closed form " << expected);
    CHECK(logits[i].grad() == Approx(expected).margin(1e-12));
  }
}

TEST_CASE("mse matches its definition", "[scalar]") {
  st::ScalarGraph g;
  const std::vector<st::Value> pred{g.leaf(1.0), g.leaf(-2.0)};
  const std::vector<double> target{0.5, 1.0};
  const st::Value loss = st::mse(pred, target);
  g.backward(loss);
  CHECK(loss.data() == Approx((0.25 + 9.0) / 2));
  CHECK(pred[0].grad() == Approx(0.5));
  CHECK(pred[1].grad() == Approx(-3.0));
}

TEST_CASE("MLP loss gradients match finite differences for every parameter", "[scalar]") {
  for (st::Activation act : {st::Activation::kTanh, st::Activation::kRelu}) {
    st::ScalarGraph g;
    seatorch::core::Rng rng(3);
    const std::array<std::size_t, 4> sizes{3, 4, 4, 3};
    const st::Mlp mlp(g, sizes, act, rng);
    const std::vector<st::Value> params = mlp.parameters();
    const std::size_t mark = g.size();
    const std::vector<double> x{0.3, -1.2, 0.8};
    auto loss_at = [&] {
      std::vector<st::Value> in;
      for (double v : x) in.push_back(g.leaf(v));
      return st::cross_entropy(mlp(in), 1);
    };
    g.backward(loss_at());
    g.truncate(mark);
    for (std::size_t i = 0; i < params.size(); ++i) {
      const double w = params[i].data();
      constexpr double h = 1e-6;
      params[i].set_data(w + h);
      const double up = loss_at().data();
      g.truncate(mark);
      params[i].set_data(w - h);
      const double down = loss_at().data();
      g.truncate(mark);
      params[i].set_data(w);
      const double numeric = (up - down) / (2 * h);
      INFO("parameter " << i << ": autograd " << params[i].grad() << ", finite difference " << numeric);
      CHECK(params[i].grad() == Approx(numeric).margin(1e-6));
    }
  }
}
