// Forward values and local derivatives of the scalar primitives, side by side.
// Each primitive's forward is in its operator below; its backward rule is the matching
// case in ScalarGraph::backward().
#include "seatorch/scalar/value.hpp"

#include <cassert>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace seatorch::scalar {

double Value::data() const { return graph_->node(index_).data; }
double Value::grad() const { return graph_->node(index_).grad; }
void Value::set_data(double data) const { graph_->node(index_).data = data; }

Value& Value::operator+=(Value other) { return *this = *this + other; }
Value& Value::operator+=(double other) { return *this = *this + other; }
Value& Value::operator*=(Value other) { return *this = *this * other; }
Value& Value::operator-=(Value other) { return *this = *this - other; }

Value ScalarGraph::leaf(double data) {
  return apply(Op::kLeaf, Value(*this, 0), Value(*this, 0), data);
}

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

void ScalarGraph::backward(Value root) {
  const std::uint32_t top = root.index();
  reached_.assign(static_cast<std::size_t>(top) + 1, 0);
  accumulate(top, 1.0);

  // Operands always have smaller indices than their results, so by the time the sweep
  // reaches a node every consumer has already added its contribution to node.grad.
  for (std::uint32_t i = top + 1; i-- > 0;) {
    if (!reached_[i]) continue;
    const Node& n = nodes_[i];  // never a reallocation here: backward appends nothing
    const double a = nodes_[n.lhs].data;
    switch (n.op) {
      case Op::kLeaf:
        break;
      case Op::kAdd:
        accumulate(n.lhs, n.grad);
        accumulate(n.rhs, n.grad);
        break;
      case Op::kMul:
        accumulate(n.lhs, n.grad * nodes_[n.rhs].data);
        accumulate(n.rhs, n.grad * a);
        break;
      case Op::kPow: {
        const double e = nodes_[n.rhs].data;  // a constant: no gradient flows to it
        accumulate(n.lhs, n.grad * e * std::pow(a, e - 1.0));
        break;
      }
      case Op::kRelu:
        accumulate(n.lhs, n.data > 0.0 ? n.grad : 0.0);
        break;
      case Op::kExp:
        accumulate(n.lhs, n.grad * n.data);
        break;
      case Op::kLog:
        accumulate(n.lhs, n.grad / a);
        break;
      case Op::kTanh:
        accumulate(n.lhs, n.grad * (1.0 - n.data * n.data));
        break;
    }
  }
}

// ---- primitives: forward ------------------------------------------------------------

Value operator+(Value a, Value b) { return a.graph().apply(Op::kAdd, a, b, a.data() + b.data()); }

Value operator*(Value a, Value b) { return a.graph().apply(Op::kMul, a, b, a.data() * b.data()); }

Value pow(Value base, double exponent) {
  const Value e = base.graph().leaf(exponent);
  return base.graph().apply(Op::kPow, base, e, std::pow(base.data(), exponent));
}

Value relu(Value x) { return x.graph().apply(Op::kRelu, x, x, x.data() > 0.0 ? x.data() : 0.0); }

Value exp(Value x) { return x.graph().apply(Op::kExp, x, x, std::exp(x.data())); }

Value log(Value x) { return x.graph().apply(Op::kLog, x, x, std::log(x.data())); }

Value tanh(Value x) { return x.graph().apply(Op::kTanh, x, x, std::tanh(x.data())); }

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
