// Elementwise ops: each op's forward, then its backward rule, side by side. As in micrograd,
// the op computes its output and records its local rule right there (a captureless lambda:
// the node holds a plain function pointer, nothing is allocated for it). Backward rules of the binary ops are written
// with the ops themselves (they run with grad mode off); the unary rules write straight into
// the input's gradient slot, in terms of the output y where that is cheaper.
#include "seatorch/tensor/elementwise.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/tensor/autograd.hpp"
#include "seatorch/tensor/reduce.hpp"
#include "strided.hpp"

#include <algorithm>
#include <cmath>

namespace seatorch::tensor {
namespace {

template <typename F>
Tensor binary(const Tensor& a, const Tensor& b, const char* op, F f) {
  expect_f32(a, op);
  expect_f32(b, op);
  const Shape shape = broadcast_shapes(a.shape(), b.shape());
  Tensor out = Tensor::empty(shape);
  detail::map2<false>(out.data<float>(), shape, a, b, f);
  return out;
}

template <typename F>
Tensor unary(const Tensor& x, const char* op, F f) {
  expect_f32(x, op);
  Tensor out = Tensor::empty(x.shape());
  detail::map1<false>(out.data<float>(), x.shape(), x, f);
  return out;
}

// Delivers a gradient of the broadcast output's shape to an input, summed over the axes
// along which that input was broadcast.
void deliver(const Tensor& input, Tensor grad) {
  if (grad.shape() == input.shape()) {
    accumulate_grad(input, std::move(grad));
  } else {
    accumulate_grad(input, sum_to(grad, input.shape()));
  }
}

}  // namespace

void expect_f32(const Tensor& t, const char* op) {
  if (!t.defined()) throw core::input_error("{}: an operand is an undefined tensor", op);
  if (t.dtype() != core::DType::kF32) {
    throw core::input_error("{}: needs F32 tensors, got {}; convert the data to float first", op,
                            core::dtype_name(t.dtype()));
  }
}

Tensor add(const Tensor& a, const Tensor& b) {
  Tensor out = binary(a, b, "add", [](float x, float y) { return x + y; });
  // d(a+b) = (g, g)
  record(
      out, "add",
      [](const Node& node, const Tensor&, Tensor g) {
        const bool both = needs_grad(node.inputs[0]) && needs_grad(node.inputs[1]);
        if (needs_grad(node.inputs[0])) deliver(node.inputs[0], both ? g : std::move(g));
        if (needs_grad(node.inputs[1])) deliver(node.inputs[1], std::move(g));
      },
      a, b);
  return out;
}

Tensor sub(const Tensor& a, const Tensor& b) {
  Tensor out = binary(a, b, "sub", [](float x, float y) { return x - y; });
  // d(a-b) = (g, -g)
  record(
      out, "sub",
      [](const Node& node, const Tensor&, Tensor g) {
        if (needs_grad(node.inputs[1])) deliver(node.inputs[1], -g);
        if (needs_grad(node.inputs[0])) deliver(node.inputs[0], std::move(g));
      },
      a, b);
  return out;
}

Tensor mul(const Tensor& a, const Tensor& b) {
  Tensor out = binary(a, b, "mul", [](float x, float y) { return x * y; });
  // d(a*b) = (g*b, g*a)
  record(
      out, "mul",
      [](const Node& node, const Tensor&, Tensor g) {
        const Tensor& lhs = node.inputs[0];
        const Tensor& rhs = node.inputs[1];
        if (needs_grad(lhs)) deliver(lhs, g * rhs);
        if (needs_grad(rhs)) deliver(rhs, g * lhs);
      },
      a, b);
  return out;
}

Tensor div(const Tensor& a, const Tensor& b) {
  Tensor out = binary(a, b, "div", [](float x, float y) { return x / y; });
  // d(a/b) = (g/b, -g*a/b^2) = (g/b, -g*y/b), y = a/b the output
  record(
      out, "div",
      [](const Node& node, const Tensor& y, Tensor g) {
        const Tensor& lhs = node.inputs[0];
        const Tensor& rhs = node.inputs[1];
        if (needs_grad(rhs)) deliver(rhs, -(g * y) / rhs);
        if (needs_grad(lhs)) deliver(lhs, g / rhs);
      },
      a, b);
  return out;
}

Tensor relu(const Tensor& x) {
  Tensor out = unary(x, "relu", [](float v) { return std::max(v, 0.0f); });
  // dy/dx = 1 where y > 0, else 0
  record(
      out, "relu",
      [](const Node& node, const Tensor& y, Tensor g) {
        detail::map2_into(grad_slot(node.inputs[0]), y.shape(), g, y,
                          [](float gi, float yi) { return yi > 0.0f ? gi : 0.0f; });
      },
      x);
  return out;
}

Tensor sigmoid(const Tensor& x) {
  // Both branches only ever exponentiate a non-positive number, so neither overflows.
  Tensor out = unary(x, "sigmoid", [](float v) {
    if (v >= 0.0f) return 1.0f / (1.0f + std::exp(-v));
    const float e = std::exp(v);
    return e / (1.0f + e);
  });
  // dy/dx = y (1 - y)
  record(
      out, "sigmoid",
      [](const Node& node, const Tensor& y, Tensor g) {
        detail::map2_into(grad_slot(node.inputs[0]), y.shape(), g, y,
                          [](float gi, float yi) { return gi * yi * (1.0f - yi); });
      },
      x);
  return out;
}

Tensor tanh(const Tensor& x) {
  Tensor out = unary(x, "tanh", [](float v) { return std::tanh(v); });
  // dy/dx = 1 - y^2
  record(
      out, "tanh",
      [](const Node& node, const Tensor& y, Tensor g) {
        detail::map2_into(grad_slot(node.inputs[0]), y.shape(), g, y,
                          [](float gi, float yi) { return gi * (1.0f - yi * yi); });
      },
      x);
  return out;
}

Tensor exp(const Tensor& x) {
  Tensor out = unary(x, "exp", [](float v) { return std::exp(v); });
  // dy/dx = y
  record(
      out, "exp",
      [](const Node& node, const Tensor& y, Tensor g) {
        detail::map2_into(grad_slot(node.inputs[0]), y.shape(), g, y, [](float gi, float yi) { return gi * yi; });
      },
      x);
  return out;
}

Tensor log(const Tensor& x) {
  Tensor out = unary(x, "log", [](float v) { return std::log(v); });
  // dy/dx = 1 / x
  record(
      out, "log",
      [](const Node& node, const Tensor& y, Tensor g) {
        detail::map2_into(grad_slot(node.inputs[0]), y.shape(), g, node.inputs[0],
                          [](float gi, float xi) { return gi / xi; });
      },
      x);
  return out;
}

}  // namespace seatorch::tensor
