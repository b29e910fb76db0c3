// The backward engine: accumulation, shared subexpressions, grad mode, zero_grad, deep
// graphs (no recursion in backward or in the graph's release) and its error messages.
#include "gradcheck.hpp"

#include "seatorch/core/error.hpp"

using namespace seatorch::tensor;

TEST_CASE("leaf gradients accumulate across backward calls and interiors keep none", "[tensor]") {
  Tensor x = Tensor::from({1.0f, -2.0f, 3.0f}, {3});
  x.set_requires_grad(true);
  const Tensor y = x * x;          // dy/dx = 2x
  const Tensor loss = sum(y + x);  // d/dx = 2x + 1: x feeds the graph twice
  loss.backward();
  testing::check_values(x.grad(), {3.0f, -3.0f, 7.0f});
  CHECK_FALSE(y.grad().defined());
  loss.backward();  // the graph is still there; leaves add a second gradient
  testing::check_values(x.grad(), {6.0f, -6.0f, 14.0f});
  x.zero_grad();
  CHECK_FALSE(x.grad().defined());
  sum(x * 3.0f).backward();
  testing::check_values(x.grad(), {3.0f, 3.0f, 3.0f});
}

TEST_CASE("NoGradGuard records nothing and restores the previous mode", "[tensor]") {
  Tensor w = Tensor::from({2.0f}, {1});
  w.set_requires_grad(true);
  CHECK(is_grad_enabled());
  {
    const NoGradGuard outer;
    {
      const NoGradGuard inner;
      CHECK_FALSE(is_grad_enabled());
    }
    CHECK_FALSE(is_grad_enabled());
    const Tensor y = w * 3.0f;
    CHECK(y.is_leaf());
    CHECK_FALSE(y.requires_grad());
    CHECK_THROWS_AS(y.backward(), seatorch::core::InputError);
  }
  CHECK(is_grad_enabled());
  const Tensor y = w * 3.0f;
  CHECK(std::string(y.op_name()) == "mul");
  CHECK(y.requires_grad());
}

TEST_CASE("a chain of 100000 ops backpropagates and is released without recursion", "[tensor]") {
  Tensor x = Tensor::from({0.5f}, {1});
  x.set_requires_grad(true);
  {
    Tensor y = x;
    for (int i = 0; i < 100000; ++i) y = y + 1.0f;
    sum(y).backward();
    // y going out of scope releases 100000 nodes; a recursive release would overflow.
  }
  testing::check_values(x.grad(), {1.0f});
}

TEST_CASE("backward explains what is wrong with its root", "[tensor]") {
  Tensor x = Tensor::from({1.0f, 2.0f}, {2});
  CHECK_THROWS_WITH(sum(x * 2.0f).backward(), Catch::Contains("does not require grad"));
  x.set_requires_grad(true);
  CHECK_THROWS_WITH((x * 2.0f).backward(), Catch::Contains("one-element"));
  Tensor y = x * 2.0f;
  y.backward(Tensor::from({1.0f, 10.0f}, {2}));  // a vector-Jacobian product instead
  testing::check_values(x.grad(), {2.0f, 20.0f});
  CHECK_THROWS_AS(y.set_requires_grad(true), seatorch::core::InputError);
  CHECK_THROWS_AS(Tensor::zeros({2}, seatorch::core::DType::kI32).set_requires_grad(true), seatorch::core::InputError);
}
