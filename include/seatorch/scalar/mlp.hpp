// Neuron, Layer and Mlp built from scalar Values (seed milestone 4), plus the plain SGD
// step (milestone 5).
//
// Parameters are leaves created once, at construction, at the bottom of the graph's arena;
// each training step's nodes go above them and are dropped with ScalarGraph::truncate().
// Initialization matches PyTorch's nn.Linear default (Kaiming-uniform with a = sqrt(5),
// i.e. weights and biases ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in))), drawn in the same order
// as the tensor engine's Linear (the whole weight matrix row by row, then the biases), so
// both engines start from identical weights for the same seed. Hidden layers use the chosen activation; the
// last layer is linear (it produces logits or regression outputs).
#pragma once

#include "seatorch/core/rng.hpp"
#include "seatorch/scalar/value.hpp"

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace seatorch::scalar {

enum class Activation { kNone, kRelu, kTanh };

// Parses "relu" or "tanh"; throws InputError otherwise.
Activation parse_activation(std::string_view name);

class Neuron {
 public:
  Neuron(std::vector<Value> weights, Value bias, Activation activation);

  // activation(b + sum_i w_i * x_i)
  [[nodiscard]] Value operator()(std::span<const Value> x) const;

  std::vector<Value> weights;  // (fan_in)
  Value bias;

 private:
  Activation activation_;
};

class Layer {
 public:
  Layer(ScalarGraph& graph, std::size_t fan_in, std::size_t fan_out, Activation activation, core::Rng& rng);

  [[nodiscard]] std::vector<Value> operator()(std::span<const Value> x) const;

  std::vector<Neuron> neurons;  // (fan_out)
};

class Mlp {
 public:
  // sizes = {inputs, hidden..., outputs}
  Mlp(ScalarGraph& graph, std::span<const std::size_t> sizes, Activation hidden_activation, core::Rng& rng);

  [[nodiscard]] std::vector<Value> operator()(std::span<const Value> x) const;

  // Every weight and bias, layer by layer; within a layer the weights row by row
  // (out, in), then the biases (out): the order of PyTorch's `0.weight, 0.bias, 2.weight...`.
  [[nodiscard]] std::vector<Value> parameters() const;

  std::vector<Layer> layers;
};

// p <- p - lr * dL/dp for every parameter.
void sgd_step(std::span<const Value> parameters, double lr);

}  // namespace seatorch::scalar
