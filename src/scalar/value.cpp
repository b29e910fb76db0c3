// Forward values and local derivatives of the scalar primitives, side by side: each
// primitive's operator is followed by its backward rule, which says what the node's gradient
// sends back to its operands. ScalarGraph::backward() at the end walks the graph once and
// applies each node's rule; the composites come last.
#include "seatorch/scalar/value.hpp"

#include <cassert>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace seatorch::scalar {
namespace {

// What a node's gradient g sends back to its operands: g * d(out)/d(operand). Only add and
// mul send anything to `rhs` (pow's rhs is its constant exponent; unary ops have none).
struct Flow {
  double lhs = 0.0;
  double rhs = 0.0;
};

}  // namespace

double Value::data() const { return graph_->node(index_).data; }
double Value::grad() const { return graph_->node(index_).grad; }
void Value::set_data(double data) const { graph_->node(index_).data = data; }

Value& Value::operator+=(Value other) { return *this = *this + other; }
Value& Value::operator+=(double other) { return *this = *this + other; }
Value& Value::operator*=(Value other) { return *this = *this * other; }
Value& Value::operator-=(Value other) { return *this = *this - other; }

Value ScalarGraph::leaf(double data) { return apply(Op::kLeaf, Value(*this, 0), Value(*this, 0), data); }

Value ScalarGraph::apply(Op op, Value lhs, Value rhs, double data) {
  if (nodes_.size() >= std::numeric_limits<std::uint32_t>::max()) {
    throw std::length_error("scalar graph exceeds 2^32 nodes; truncate() it between steps");
  }
  const auto index = static_cast<std::uint32_t>(nodes_.size());
  nodes_.push_back(Node{data, 0.0, lhs.index(), rhs.index(), op});
  return Value(*this, index);
}

void ScalarGraph::truncate(std::size_t mark) {
  assert(mark <= nodes_.size());
  nodes_.resize(mark);
}

void ScalarGraph::zero_grad() {
  for (Node& n : nodes_) n.grad = 0.0;
}

void ScalarGraph::accumulate(std::uint32_t index, double grad) {
  Node& n = nodes_[index];
  if (!reached_[index]) {
    reached_[index] = 1;
    // Interior gradients are scratch for this call; leaf gradients accumulate across calls.
    if (n.op != Op::kLeaf) n.grad = 0.0;
  }
  n.grad += grad;
}

// ---- primitives: forward, then the local backward rule ----------------------------
// Each rule gets the output node (its value and gradient g) and the operands' values a, b.

// add: a + b; d/da = d/db = 1
Value operator+(Value a, Value b) { return a.graph().apply(Op::kAdd, a, b, a.data() + b.data()); }
static Flow add_backward(const Node& n, double, double) { return {n.grad, n.grad}; }

// mul: a * b; d/da = b, d/db = a
Value operator*(Value a, Value b) { return a.graph().apply(Op::kMul, a, b, a.data() * b.data()); }
static Flow mul_backward(const Node& n, double a, double b) { return {n.grad * b, n.grad * a}; }

// pow: a^e for a constant e (a leaf: no gradient flows to it); d/da = e a^(e-1)
Value pow(Value base, double exponent) {
  const Value e = base.graph().leaf(exponent);
  return base.graph().apply(Op::kPow, base, e, std::pow(base.data(), exponent));
}
static Flow pow_backward(const Node& n, double a, double e) { return {n.grad * e * std::pow(a, e - 1.0)}; }

// relu: max(x, 0); d/dx = 1 where the output is positive, else 0
Value relu(Value x) { return x.graph().apply(Op::kRelu, x, x, x.data() > 0.0 ? x.data() : 0.0); }
static Flow relu_backward(const Node& n, double, double) { return {n.data > 0.0 ? n.grad : 0.0}; }

// exp: e^x; d/dx = e^x, the output
Value exp(Value x) { return x.graph().apply(Op::kExp, x, x, std::exp(x.data())); }
static Flow exp_backward(const Node& n, double, double) { return {n.grad * n.data}; }

// log: ln x; d/dx = 1 / x
Value log(Value x) { return x.graph().apply(Op::kLog, x, x, std::log(x.data())); }
static Flow log_backward(const Node& n, double a, double) { return {n.grad / a}; }

// tanh: tanh x; d/dx = 1 - tanh(x)^2, from the output
Value tanh(Value x) { return x.graph().apply(Op::kTanh, x, x, std::tanh(x.data())); }
static Flow tanh_backward(const Node& n, double, double) { return {n.grad * (1.0 - n.data * n.data)}; }

// ---- backward ---------------------------------------------------------------------

void ScalarGraph::backward(Value root) {
  const std::uint32_t top = root.index();
  reached_.assign(static_cast<std::size_t>(top) + 1, 0);
  accumulate(top, 1.0);

  // Operands always have smaller indices than their results, so by the time the sweep
  // reaches a node every consumer has already added its contribution to node.grad.
  for (std::uint32_t i = top + 1; i-- > 0;) {
    if (!reached_[i]) continue;
    const Node& n = nodes_[i];  // never a reallocation here: backward appends nothing
    if (n.op == Op::kLeaf) continue;
    const double a = nodes_[n.lhs].data;
    const double b = nodes_[n.rhs].data;
    Flow flow;
    switch (n.op) {
      case Op::kLeaf:
        break;
      case Op::kAdd:
        flow = add_backward(n, a, b);
        break;
      case Op::kMul:
        flow = mul_backward(n, a, b);
        break;
      case Op::kPow:
        flow = pow_backward(n, a, b);
        break;
      case Op::kRelu:
        flow = relu_backward(n, a, b);
        break;
      case Op::kExp:
        flow = exp_backward(n, a, b);
        break;
      case Op::kLog:
        flow = log_backward(n, a, b);
        break;
      case Op::kTanh:
        flow = tanh_backward(n, a, b);
        break;
    }
    accumulate(n.lhs, flow.lhs);
    if (n.op == Op::kAdd || n.op == Op::kMul) accumulate(n.rhs, flow.rhs);
  }
}

// ---- composites ---------------------------------------------------------------------

Value operator-(Value x) { return x * -1.0; }
Value operator-(Value a, Value b) { return a + (-b); }
Value operator/(Value a, Value b) { return a * pow(b, -1.0); }
Value operator+(Value a, double b) { return a + a.graph().leaf(b); }
Value operator+(double a, Value b) { return b.graph().leaf(a) + b; }
Value operator-(Value a, double b) { return a + (-b); }
Value operator-(double a, Value b) { return a + (-b); }
Value operator*(Value a, double b) { return a * a.graph().leaf(b); }
Value operator*(double a, Value b) { return b.graph().leaf(a) * b; }
Value operator/(Value a, double b) { return a * (1.0 / b); }
Value operator/(double a, Value b) { return a * pow(b, -1.0); }

}  // namespace seatorch::scalar
