// matmul and linear: forward against a double-precision oracle for every operand layout
// (row-major, column-major, row-sliced, and one with no unit stride that is copied first),
// and gradients against finite
// differences, including gradients that accumulate into a weight used twice; linear_relu
// against relu(linear), bit for bit, on one to three threads.
#include "../same_bits.hpp"
#include "gradcheck.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/kernels/product_log.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

using namespace seatorch::tensor;
using testing::check_gradients;

namespace {

constexpr double kProductTolerance = 1e-5;

Tensor input(const Shape& shape, std::uint64_t seed) {
  seatorch::core::Rng rng(seed);
  return testing::random_tensor(shape, rng);
}

// C = A B in double, from any layouts.
std::vector<double> oracle(const Tensor& a, const Tensor& b) {
  const std::size_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  std::vector<double> c(m * n, 0.0);
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t p = 0; p < k; ++p) c[i * n + j] += static_cast<double>(a.at({i, p})) * b.at({p, j});
    }
  }
  return c;
}

void check_product(const Tensor& got, const std::vector<double>& expected) {
  const std::vector<float> v = got.values();
  REQUIRE(v.size() == expected.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    INFO("element " << i << ": got " << v[i] << ", expected " << expected[i]);
    CHECK(v[i] == Approx(expected[i]).margin(kProductTolerance));
  }
}

}  // namespace

TEST_CASE("matmul matches a double oracle for plain and transposed operands", "[tensor]") {
  const Tensor a = input({5, 3}, 1);
  const Tensor b = input({3, 4}, 2);
  const Tensor at = transpose(input({3, 5}, 3), 0, 1);     // (5, 3) stored column-major
  const Tensor bt = transpose(input({4, 3}, 4), 0, 1);     // (3, 4) stored column-major
  const Tensor sliced = slice(input({5, 6}, 5), 1, 2, 5);  // (5, 3) with row stride 6
  for (const Tensor& lhs : {a, at, sliced}) {
    for (const Tensor& rhs : {b, bt}) {
      const Tensor c = matmul(lhs, rhs);
      CHECK(c.shape() == Shape{5, 4});
      check_product(c, oracle(lhs, rhs));
    }
  }
  // A layout with no unit stride is copied first, and still correct.
  const Tensor strided = Tensor::view_of(input({40}, 7), {5, 3}, {6, 2}, 0);  // no unit stride at all
  check_product(matmul(strided, b), oracle(strided, b));
  CHECK_THROWS_WITH(matmul(a, a), Catch::Contains("(5, 3)") && Catch::Contains("do not chain"));
}

TEST_CASE("matmul gradients match finite differences for every layout", "[tensor]") {
  check_gradients([](const auto& in) { return matmul(in[0], in[1]); }, {input({4, 3}, 8), input({3, 5}, 9)});
  check_gradients([](const auto& in) { return matmul(transpose(in[0], 0, 1), transpose(in[1], 0, 1)); },
                  {input({3, 4}, 10), input({5, 3}, 11)});
  // Broadcast rows (row stride 0) are copied to a dense layout first.
  check_gradients(
      [](const auto& in) {
        return matmul(expand(in[0], {2, 3}), in[1]);
      },
      {input({1, 3}, 12), input({3, 2}, 13)});
}

TEST_CASE("linear equals x W^T + b and its gradients match finite differences", "[tensor]") {
  const Tensor x = input({4, 3}, 14);
  const Tensor w = input({5, 3}, 15);
  const Tensor b = input({5}, 16);
  const Tensor y = linear(x, w, b);
  const std::vector<double> xw = oracle(x, transpose(w, 0, 1));
  std::vector<double> expected(xw.size());
  for (std::size_t i = 0; i < xw.size(); ++i) expected[i] = xw[i] + b.at({i % 5});
  check_product(y, expected);
  check_product(linear(x, w), xw);

  check_gradients([](const auto& in) { return linear(in[0], in[1], in[2]); },
                  {input({4, 3}, 17), input({5, 3}, 18), input({5}, 19)});
  // The same weight twice: the second backward contribution accumulates into the first.
  check_gradients([](const auto& in) { return linear(tanh(linear(in[0], in[1], in[2])), in[1], in[2]); },
                  {input({2, 3}, 20), input({3, 3}, 21), input({3}, 22)});
  CHECK_THROWS_AS(linear(x, input({5, 4}, 23)), seatorch::core::InputError);
  CHECK_THROWS_AS(linear(x, w, input({4}, 24)), seatorch::core::InputError);
}

namespace {

struct LinearRun {
  std::vector<float> y, dx, dw, db;
};

// y = f(x, w, b) on the given thread count, then backward from the weighted sum of y.
template <class F>
LinearRun linear_run(F f, const Shape& x_shape, std::size_t outs, std::size_t threads) {
  const seatorch::core::ScopedThreads count(threads);
  seatorch::core::Rng rng(31);
  Tensor x = testing::random_tensor(x_shape, rng);
  Tensor w = testing::random_tensor({outs, x_shape[1]}, rng, -0.1, 0.1);
  Tensor b = testing::random_tensor({outs}, rng);
  const Tensor weights = testing::random_tensor({x_shape[0], outs}, rng);
  for (Tensor* t : {&x, &w, &b}) t->set_requires_grad(true);
  const Tensor y = f(x, w, b);
  sum(mul(y, weights)).backward();
  return {y.values(), x.grad().values(), w.grad().values(), b.grad().values()};
}

void require_same_bits(const std::vector<float>& got, const std::vector<float>& expected, const char* what) {
  REQUIRE(got.size() == expected.size());
  if (const std::optional<std::size_t> i = seatorch::test::first_bit_difference(got, expected)) {
    FAIL(what << " element " << *i << ": " << got[*i] << ", expected " << expected[*i]);
  }
}

}  // namespace

TEST_CASE("linear_relu gives relu(linear)'s bits forward and backward on any thread count", "[tensor]") {
  const auto fused = [](const Tensor& x, const Tensor& w, const Tensor& b) { return linear_relu(x, w, b); };
  const auto unfused = [](const Tensor& x, const Tensor& w, const Tensor& b) { return relu(linear(x, w, b)); };
  // A small layer; the MLP's hidden layers (deeper than one depth block, split across
  // threads by columns); a batch whose rows split instead; and a layer wide enough that its
  // gradient is masked in column ranges too (at least 2^16 elements a thread).
  const struct {
    Shape x;
    std::size_t outs;
  } cases[] = {{{5, 7}, 3}, {{64, 784}, 128}, {{128, 256}, 128}, {{200, 33}, 40}, {{256, 40}, 512}};
  for (const auto& c : cases) {
    const LinearRun expected = linear_run(unfused, c.x, c.outs, 1);
    for (const std::size_t threads : {1, 2, 3}) {
      INFO("x " << c.x.str() << ", " << c.outs << " outputs, " << threads << " thread(s)");
      const LinearRun got = linear_run(fused, c.x, c.outs, threads);
      require_same_bits(got.y, expected.y, "y");
      require_same_bits(got.dx, expected.dx, "dx");
      require_same_bits(got.dw, expected.dw, "dW");
      require_same_bits(got.db, expected.db, "db");
    }
  }
  // Against finite differences, with every pre-activation at least 0.2 from the kink:
  // |x W^T| <= 0.3 and |b| >= 0.5, and a step moves it by at most 0.01.
  seatorch::core::Rng rng(25);
  const Tensor x = testing::random_tensor({4, 3}, rng);
  const Tensor w = testing::random_tensor({5, 3}, rng, -0.1, 0.1);
  const Tensor b = testing::random_away_from_zero({5}, rng, 0.5);
  check_gradients([](const auto& in) { return linear_relu(in[0], in[1], in[2]); }, {x, w, b});
}

namespace {

// linear_relu (or linear) on an input that is 80 % zeros, then backward from the weighted sum
// of y; the input as data (no gradient: the sparse products) or as a leaf that wants one (the
// dense), the weight held either way (tensor::WeightLayout), dW given as W's (out, in)
// whichever way it was held.
struct SparseInputRun {
  LinearRun run;
  std::vector<seatorch::kernels::ProductRecord> products;
};

// linear and linear_relu of a (4, 3) input with the weight held in `layout` (`held` its
// shape, `outs` outputs) against finite differences, every pre-activation at least 0.2 from
// the ReLU's kink (|x W^T| <= 0.3, |b| >= 0.5; a step moves it by at most 0.01).
void check_held_gradients(WeightLayout layout, const Shape& held, std::size_t outs, std::uint64_t seed) {
  for (const bool relu : {false, true}) {
    seatorch::core::Rng rng(seed);  // fresh leaves each time: their gradients accumulate
    const Tensor x = testing::random_tensor({4, 3}, rng);
    const Tensor w = testing::random_tensor(held, rng, -0.1, 0.1);
    const Tensor b = testing::random_away_from_zero({outs}, rng, 0.5);
    INFO((relu ? "linear_relu" : "linear"));
    check_gradients(
        [relu, layout](const auto& in) {
          return relu ? linear_relu(in[0], in[1], in[2], layout) : linear(in[0], in[1], in[2], layout);
        },
        {x, w, b});
  }
}

SparseInputRun sparse_input_run(const Shape& x_shape, std::size_t outs, bool x_wants_grad, std::size_t threads,
                                bool relu = true, WeightLayout layout = WeightLayout::kOutIn,
                                std::size_t panel_width = 0) {
  const seatorch::core::ScopedThreads count(threads);
  seatorch::core::Rng rng(33);
  Tensor x = testing::random_tensor(x_shape, rng);
  for (std::size_t i = 0; i < x.numel(); ++i) {
    if (rng.uniform(0.0, 1.0) < 0.8) x.data<float>()[i] = 0.0f;
  }
  const Tensor w = testing::random_tensor({outs, x_shape[1]}, rng, -0.1, 0.1);
  Tensor b = testing::random_tensor({outs}, rng);
  const Tensor weights = testing::random_tensor({x_shape[0], outs}, rng);
  Tensor held = seatorch::tensor::weight_held(w, layout, panel_width);
  for (Tensor* t : {&held, &b}) t->set_requires_grad(true);
  x.set_requires_grad(x_wants_grad);
  seatorch::kernels::ProductLog log;
  Tensor y;
  {
    const seatorch::kernels::RecordProducts recording(log);
    y = relu ? linear_relu(x, held, b, layout) : linear(x, held, b, layout);
    sum(mul(y, weights)).backward();
  }
  const Tensor dw = contiguous(seatorch::tensor::weight_out_in(held.grad(), layout));
  return {{y.values(), x_wants_grad ? x.grad().values() : std::vector<float>{}, dw.values(), b.grad().values()},
          log.records()};
}

}  // namespace

TEST_CASE("linear_relu on sparse data runs the sparse products and gives the dense ones' bits", "[tensor]") {
  // The MLP's first layer, one deeper than two AVX-512 passes, and a small one.
  const struct {
    Shape x;
    std::size_t outs;
  } cases[] = {{{64, 784}, 128}, {{20, 1100}, 40}, {{5, 7}, 3}};
  for (const auto& c : cases) {
    const SparseInputRun dense = sparse_input_run(c.x, c.outs, true, 1);
    for (const auto& p : dense.products) CHECK_FALSE(p.kind.sparse);
    for (const std::size_t threads : {1, 2, 3}) {
      INFO("x " << c.x.str() << ", " << c.outs << " outputs, " << threads << " thread(s)");
      const SparseInputRun sparse = sparse_input_run(c.x, c.outs, false, threads);
      // The forward and the weight gradient, both sparse; no input gradient is asked for.
      REQUIRE(sparse.products.size() == 2);
      for (const auto& p : sparse.products) CHECK(p.kind.sparse);
      require_same_bits(sparse.run.y, dense.run.y, "y");
      require_same_bits(sparse.run.dw, dense.run.dw, "dW");
      require_same_bits(sparse.run.db, dense.run.db, "db");
    }
  }
}

TEST_CASE("linear with the weight held as its transpose gives the same bits, dense and sparse, on any thread count",
          "[tensor]") {
  const struct {
    Shape x;
    std::size_t outs;
    bool sparse;
  } cases[] = {{{5, 7}, 3, false},     {{64, 784}, 128, false}, {{128, 256}, 128, false}, {{256, 40}, 512, false},
               {{64, 784}, 128, true}, {{20, 1100}, 40, true},  {{5, 7}, 3, true},        {{128, 784}, 256, true}};
  for (const auto& c : cases) {
    for (const bool relu : {false, true}) {
      const SparseInputRun expected = sparse_input_run(c.x, c.outs, !c.sparse, 1, relu, WeightLayout::kOutIn);
      for (const std::size_t threads : {1, 2, 3}) {
        INFO("x " << c.x.str() << ", " << c.outs << " outputs, " << (c.sparse ? "sparse data" : "dense") << ", "
                  << (relu ? "linear_relu" : "linear") << ", " << threads << " thread(s)");
        const SparseInputRun got = sparse_input_run(c.x, c.outs, !c.sparse, threads, relu, WeightLayout::kInOut);
        REQUIRE(got.products.size() == expected.products.size());
        for (std::size_t p = 0; p < got.products.size(); ++p) CHECK(got.products[p].kind.sparse == c.sparse);
        require_same_bits(got.run.y, expected.run.y, "y");
        require_same_bits(got.run.dx, expected.run.dx, "dx");
        require_same_bits(got.run.dw, expected.run.dw, "dW");
        require_same_bits(got.run.db, expected.run.db, "db");
      }
    }
  }
  // Against finite differences, and the shapes that do not chain named as the layout reads them.
  check_held_gradients(WeightLayout::kInOut, {3, 5}, 5, 27);
  seatorch::core::Rng rng(27);
  const Tensor x = testing::random_tensor({4, 3}, rng);
  CHECK_THROWS_WITH(linear(x, testing::random_tensor({5, 3}, rng), Tensor(), WeightLayout::kInOut),
                    Catch::Contains("(5, 3) held as (in, out)") && Catch::Contains("expected 5 features"));
}

TEST_CASE("linear with the weight held in panels gives the output and weight gradient bits on any thread count",
          "[tensor]") {
  // The default model's first layer (two panels of 128), the same on dense data, a layer of 5
  // panels of 8 for 2 or 3 threads to split unevenly, a small one, and a wide one.
  const struct {
    Shape x;
    std::size_t outs;
    bool sparse;
    std::size_t width;
  } cases[] = {{{128, 784}, 256, true, 128},
               {{64, 784}, 256, false, 128},
               {{20, 1100}, 40, true, 8},
               {{5, 7}, 6, false, 2},
               {{256, 40}, 512, false, 128}};
  for (const auto& c : cases) {
    for (const bool relu : {false, true}) {
      const SparseInputRun expected = sparse_input_run(c.x, c.outs, !c.sparse, 1, relu, WeightLayout::kInOut);
      const SparseInputRun one = sparse_input_run(c.x, c.outs, !c.sparse, 1, relu, WeightLayout::kInOutPanels, c.width);
      for (const std::size_t threads : {1, 2, 3}) {
        INFO("x " << c.x.str() << ", " << c.outs << " outputs in panels of " << c.width << ", "
                  << (c.sparse ? "sparse data" : "dense") << ", " << (relu ? "linear_relu" : "linear") << ", "
                  << threads << " thread(s)");
        const SparseInputRun got =
            sparse_input_run(c.x, c.outs, !c.sparse, threads, relu, WeightLayout::kInOutPanels, c.width);
        for (const auto& p : got.products) CHECK(p.kind.sparse == c.sparse);
        require_same_bits(got.run.y, expected.run.y, "y");
        require_same_bits(got.run.dw, expected.run.dw, "dW");
        require_same_bits(got.run.db, expected.run.db, "db");
        // The input's gradient is summed panel by panel: the same bits on any thread count,
        // and within rounding of the sum taken in one go.
        require_same_bits(got.run.dx, one.run.dx, "dx");
        REQUIRE(got.run.dx.size() == expected.run.dx.size());
        for (std::size_t i = 0; i < got.run.dx.size(); ++i) {
          INFO("dx[" << i << "]: panels " << got.run.dx[i] << ", whole " << expected.run.dx[i]);
          REQUIRE(std::abs(got.run.dx[i] - expected.run.dx[i]) <= 1e-5f * (1.0f + std::abs(expected.run.dx[i])));
        }
      }
    }
  }
  // Against finite differences (3 panels of 2: 6 outputs), and a weight that is not 3-D.
  check_held_gradients(WeightLayout::kInOutPanels, {3, 3, 2}, 6, 29);
  seatorch::core::Rng rng(29);
  const Tensor x = testing::random_tensor({4, 3}, rng);
  CHECK_THROWS_WITH(linear(x, testing::random_tensor({9, 2}, rng), Tensor(), WeightLayout::kInOutPanels),
                    Catch::Contains("must be 3-D"));
}

TEST_CASE("a weight held in panels goes back to W's rows and is refused a width that does not divide it", "[tensor]") {
  seatorch::core::Rng rng(31);
  const Tensor w = testing::random_tensor({6, 5}, rng);  // W (out, in)
  for (const WeightLayout layout : {WeightLayout::kOutIn, WeightLayout::kInOut, WeightLayout::kInOutPanels}) {
    INFO("layout " << static_cast<int>(layout));
    const Tensor held = seatorch::tensor::weight_held(w, layout, 3);
    CHECK(contiguous(seatorch::tensor::weight_out_in(held, layout)).values() == w.values());
    std::vector<float> copied(w.numel());  // (6, 5), W's values straight from the held tensor
    seatorch::tensor::copy_out_in(held, layout, copied);
    CHECK(copied == w.values());
  }
  std::vector<float> short_array(29);
  CHECK_THROWS_AS(seatorch::tensor::copy_out_in(w, WeightLayout::kOutIn, short_array), std::logic_error);
  const Tensor panels = seatorch::tensor::weight_held(w, WeightLayout::kInOutPanels, 3);
  REQUIRE(panels.shape() == Shape{2, 5, 3});
  // Element (i, c) of panel p is W's row 3p + c, column i.
  CHECK(panels.data<float>()[1 * 15 + 4 * 3 + 2] == w.data<float>()[5 * 5 + 4]);
  CHECK_THROWS_WITH(seatorch::tensor::weight_held(w, WeightLayout::kInOutPanels, 4),
                    Catch::Contains("6 outputs") && Catch::Contains("panels of 4"));
}
