// The scalar autograd engine (seed milestones 1-3), in the spirit of micrograd.
//
// A ScalarGraph is an arena of nodes; a Value is a 16-byte handle (graph, index) into it.
// Every op appends its output node after its operands, so the arena's index order is
// always a topological order of the graph. backward() exploits that: one descending sweep
// over the indices visits each node after every node that consumes it, with no recursion,
// no stack and no per-node allocation (a chain of 10^6 nodes is as easy as a chain of 3).
//
// The closed set of primitive ops is add, mul, pow (by a constant exponent), relu, exp,
// log and tanh. Negation, subtraction and division are composites built from them.
//
// Deliberately not here: tensors (see the tensor engine), higher-order gradients, threads.
// Node handles are only valid until the graph is truncate()d below their index.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace seatorch::scalar {

enum class Op : std::uint8_t { kLeaf, kAdd, kMul, kPow, kRelu, kExp, kLog, kTanh };

// One arena slot. For kPow, `rhs` is a leaf holding the (constant) exponent; unary ops
// ignore `rhs`. 32 bytes: the whole engine's memory cost per node.
struct Node {
  double data;
  double grad;
  std::uint32_t lhs;
  std::uint32_t rhs;
  Op op;
};

class ScalarGraph;

class Value {
 public:
  Value(ScalarGraph& graph, std::uint32_t index) : graph_(&graph), index_(index) {}

  [[nodiscard]] double data() const;
  [[nodiscard]] double grad() const;
  void set_data(double data) const;
  [[nodiscard]] ScalarGraph& graph() const { return *graph_; }
  [[nodiscard]] std::uint32_t index() const { return index_; }

  // Rebinding compound assignment, as in micrograd: `c += c + 1` makes c a new node.
  Value& operator+=(Value other);
  Value& operator+=(double other);
  Value& operator*=(Value other);
  Value& operator-=(Value other);

 private:
  ScalarGraph* graph_;
  std::uint32_t index_;
};

class ScalarGraph {
 public:
  // A leaf: a parameter, an input or a constant. Leaves are where gradients accumulate.
  Value leaf(double data);
  // Appends an op node; used by the free functions below.
  Value apply(Op op, Value lhs, Value rhs, double data);

  // Reverse-mode autodiff from `root`: seeds d(root)/d(root) = 1 and accumulates
  // d(root)/d(leaf) into every leaf that root depends on.
  //
  // Calling it twice (or for several roots) is defined: interior gradients are recomputed
  // from scratch on every call, while leaf gradients accumulate, so two calls leave exactly
  // twice the gradient on each leaf, as PyTorch does with retain_graph=True.
  void backward(Value root);

  // Sets every gradient in the graph to zero.
  void zero_grad();

  // Per-step arena: remember size() after creating the parameters, then truncate(mark)
  // after each step to drop that step's nodes while keeping the memory for the next step.
  [[nodiscard]] std::size_t size() const { return nodes_.size(); }
  void truncate(std::size_t mark);
  void reserve(std::size_t nodes) { nodes_.reserve(nodes); }

  [[nodiscard]] const Node& node(std::uint32_t index) const { return nodes_[index]; }
  [[nodiscard]] Node& node(std::uint32_t index) { return nodes_[index]; }

 private:
  void accumulate(std::uint32_t index, double grad);

  std::vector<Node> nodes_;
  std::vector<std::uint8_t> reached_;  // (nodes) scratch for backward(): reachable from root
};

// Primitive ops.
Value operator+(Value a, Value b);
Value operator*(Value a, Value b);
Value pow(Value base, double exponent);
Value relu(Value x);
Value exp(Value x);
Value log(Value x);
Value tanh(Value x);

// Composites, built only from the primitives.
Value operator-(Value x);
Value operator-(Value a, Value b);
Value operator/(Value a, Value b);
Value operator+(Value a, double b);
Value operator+(double a, Value b);
Value operator-(Value a, double b);
Value operator-(double a, Value b);
Value operator*(Value a, double b);
Value operator*(double a, Value b);
Value operator/(Value a, double b);
Value operator/(double a, Value b);

}  // namespace seatorch::scalar
