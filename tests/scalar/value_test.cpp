// The scalar engine against its oracles: central finite differences in double precision
// for every op, micrograd's two reference expressions, and the 10^6-node chain.
#include "seatorch/scalar/value.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>

namespace st = seatorch::scalar;

namespace {

constexpr double kStep = 1e-6;           // finite-difference step
constexpr double kGradTolerance = 1e-6;  // relative, plus the same absolute floor

using UnaryFn = std::function<st::Value(st::Value)>;
using BinaryFn = std::function<st::Value(st::Value, st::Value)>;

double eval_unary(const UnaryFn& f, double x) {
  st::ScalarGraph g;
  return f(g.leaf(x)).data();
}

void check_unary(const std::string& name, const UnaryFn& f, double x) {
  st::ScalarGraph g;
  const st::Value in = g.leaf(x);
  g.backward(f(in));
  const double numeric = (eval_unary(f, x + kStep) - eval_unary(f, x - kStep)) / (2 * kStep);
  INFO(name << " at x = " << x << ": autograd " << in.grad() << ", finite difference " << numeric);
  CHECK(in.grad() == Approx(numeric).epsilon(kGradTolerance).margin(kGradTolerance));
}

void check_binary(const std::string& name, const BinaryFn& f, double a, double b) {
  st::ScalarGraph g;
  const st::Value va = g.leaf(a);
  const st::Value vb = g.leaf(b);
  g.backward(f(va, vb));
  auto at = [&](double x, double y) {
    st::ScalarGraph h;
    return f(h.leaf(x), h.leaf(y)).data();
  };
  const double da = (at(a + kStep, b) - at(a - kStep, b)) / (2 * kStep);
  const double db = (at(a, b + kStep) - at(a, b - kStep)) / (2 * kStep);
  INFO(name << " at (" << a << ", " << b << "): d/da autograd " << va.grad() << " vs " << da << ", d/db autograd "
            << vb.grad() << " vs " << db);
  CHECK(va.grad() == Approx(da).epsilon(kGradTolerance).margin(kGradTolerance));
  CHECK(vb.grad() == Approx(db).epsilon(kGradTolerance).margin(kGradTolerance));
}

}  // namespace

TEST_CASE("unary ops match finite differences", "[scalar]") {
  for (double x : {-2.5, -0.3, 0.7, 1.9}) {
    check_unary(
        "relu", [](st::Value v) { return st::relu(v); }, x);
    check_unary(
        "exp", [](st::Value v) { return st::exp(v); }, x);
    check_unary(
        "tanh", [](st::Value v) { return st::tanh(v); }, x);
    check_unary(
        "neg", [](st::Value v) { return -v; }, x);
    check_unary(
        "square", [](st::Value v) { return st::pow(v, 2.0); }, x);
    check_unary(
        "cube", [](st::Value v) { return st::pow(v, 3.0); }, x);
    check_unary(
        "reciprocal", [](st::Value v) { return st::pow(v, -1.0); }, x);
    check_unary(
        "const/x", [](st::Value v) { return 3.0 / v; }, x);
    check_unary(
        "x-const", [](st::Value v) { return 2.0 - v * 4.0 + 1.0; }, x);
  }
  for (double x : {0.2, 1.0, 3.7}) {
    check_unary(
        "log", [](st::Value v) { return st::log(v); }, x);
    check_unary(
        "sqrt", [](st::Value v) { return st::pow(v, 0.5); }, x);
    check_unary(
        "pow 1.5", [](st::Value v) { return st::pow(v, 1.5); }, x);
  }
}

TEST_CASE("binary ops match finite differences", "[scalar]") {
  for (auto [a, b] : {std::pair{1.5, -2.0}, std::pair{-0.4, 0.9}, std::pair{3.0, 3.0}}) {
    check_binary(
        "add", [](st::Value x, st::Value y) { return x + y; }, a, b);
    check_binary(
        "mul", [](st::Value x, st::Value y) { return x * y; }, a, b);
    check_binary(
        "sub", [](st::Value x, st::Value y) { return x - y; }, a, b);
    check_binary(
        "div", [](st::Value x, st::Value y) { return x / y; }, a, b);
    check_binary(
        "tanh(x*y)+exp(y)", [](st::Value x, st::Value y) { return st::tanh(x * y) + st::exp(y); }, a, b);
  }
}

TEST_CASE("a node used twice receives both contributions", "[scalar]") {
  st::ScalarGraph g;
  const st::Value x = g.leaf(3.0);
  g.backward(x * x + x);  // d/dx = 2x + 1
  CHECK(x.grad() == 7.0);
}

TEST_CASE("micrograd reference expression 1", "[scalar]") {
  st::ScalarGraph g;
  const st::Value x = g.leaf(-4.0);
  const st::Value z = 2.0 * x + 2.0 + x;
  const st::Value q = st::relu(z) + z * x;
  const st::Value h = st::relu(z * z);
  const st::Value y = h + q + q * x;
  g.backward(y);
  CHECK(y.data() == Approx(-20.0).epsilon(1e-12));
  CHECK(x.grad() == Approx(46.0).epsilon(1e-12));
}

TEST_CASE("micrograd reference expression 2", "[scalar]") {
  st::ScalarGraph g;
  const st::Value a = g.leaf(-4.0);
  const st::Value b = g.leaf(2.0);
  st::Value c = a + b;
  st::Value d = a * b + st::pow(b, 3.0);
  c += c + 1.0;
  c += 1.0 + c + (-a);
  d += d * 2.0 + st::relu(b + a);
  d += 3.0 * d + st::relu(b - a);
  const st::Value e = c - d;
  const st::Value f = st::pow(e, 2.0);
  st::Value out = f / 2.0;
  out += 10.0 / f;
  g.backward(out);
  CHECK(out.data() == Approx(24.7040816327).epsilon(1e-10));
  CHECK(a.grad() == Approx(138.8338192420).epsilon(1e-10));
  CHECK(b.grad() == Approx(645.5772594752).epsilon(1e-10));
}

TEST_CASE("backward twice accumulates exactly twice into leaves and zero_grad resets", "[scalar]") {
  st::ScalarGraph g;
  const st::Value a = g.leaf(1.5);
  const st::Value b = g.leaf(-2.0);
  const st::Value y = st::tanh(a * b) * a;
  g.backward(y);
  const double ga = a.grad();
  const double gb = b.grad();
  g.backward(y);
  CHECK(a.grad() == 2 * ga);
  CHECK(b.grad() == 2 * gb);
  g.zero_grad();
  CHECK(a.grad() == 0.0);
  CHECK(b.grad() == 0.0);
  g.backward(y);
  CHECK(a.grad() == ga);
}

TEST_CASE("nodes the root does not depend on get no gradient", "[scalar]") {
  st::ScalarGraph g;
  const st::Value a = g.leaf(2.0);
  const st::Value b = g.leaf(5.0);
  const st::Value unrelated = b * b;
  const st::Value y = a * 3.0;
  g.backward(y);
  CHECK(a.grad() == 3.0);
  CHECK(b.grad() == 0.0);
  CHECK(unrelated.grad() == 0.0);
}

TEST_CASE("truncate drops a step's nodes and keeps the leaves below the mark", "[scalar]") {
  st::ScalarGraph g;
  const st::Value w = g.leaf(0.5);
  const std::size_t mark = g.size();
  for (int step = 0; step < 3; ++step) {
    g.backward(st::pow(w * 4.0, 2.0));  // d/dw = 32 w
    g.truncate(mark);
    REQUIRE(g.size() == mark);
  }
  CHECK(w.grad() == Approx(3 * 16.0));
}

TEST_CASE("a chain of 10^6 nodes runs backward without recursion", "[scalar]") {
  st::ScalarGraph g;
  const st::Value x = g.leaf(1.0);
  st::Value y = x;
  constexpr int kLinks = 500'000;  // each link is a constant leaf and a mul: 10^6 nodes
  for (int i = 0; i < kLinks; ++i) y = y * 1.000001;
  REQUIRE(g.size() == 2 * kLinks + 1);
  g.backward(y);
  const double expected = std::pow(1.000001, kLinks);
  CHECK(y.data() == Approx(expected).epsilon(1e-9));
  CHECK(x.grad() == Approx(expected).epsilon(1e-9));
}
