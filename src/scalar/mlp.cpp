// Scalar MLP: the forward pass is graph construction, nothing more.
#include "seatorch/scalar/mlp.hpp"

#include "seatorch/core/error.hpp"

#include <cmath>
#include <utility>

namespace seatorch::scalar {
namespace {

Value init_parameter(ScalarGraph& graph, std::size_t fan_in, core::Rng& rng) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan_in));
  return graph.leaf(rng.uniform(-bound, bound));
}

Value activate(Value x, Activation activation) {
  switch (activation) {
    case Activation::kRelu:
      return relu(x);
    case Activation::kTanh:
      return tanh(x);
    case Activation::kNone:
      break;
  }
  return x;
}

}  // namespace

Activation parse_activation(std::string_view name) {
  if (name == "relu") return Activation::kRelu;
  if (name == "tanh") return Activation::kTanh;
  throw core::input_error("unknown activation '{}': use relu or tanh", name);
}

Neuron::Neuron(std::vector<Value> weights, Value bias, Activation activation)
    : weights(std::move(weights)), bias(bias), activation_(activation) {}

Value Neuron::operator()(std::span<const Value> x) const {
  Value sum = bias;
  for (std::size_t i = 0; i < weights.size(); ++i) sum = sum + weights[i] * x[i];
  return activate(sum, activation_);
}

Layer::Layer(ScalarGraph& graph, std::size_t fan_in, std::size_t fan_out, Activation activation, core::Rng& rng) {
  std::vector<std::vector<Value>> rows(fan_out);  // (fan_out, fan_in)
  for (std::vector<Value>& row : rows) {
    for (std::size_t i = 0; i < fan_in; ++i) row.push_back(init_parameter(graph, fan_in, rng));
  }
  neurons.reserve(fan_out);
  for (std::vector<Value>& row : rows) {
    neurons.emplace_back(std::move(row), init_parameter(graph, fan_in, rng), activation);
  }
}

std::vector<Value> Layer::operator()(std::span<const Value> x) const {
  std::vector<Value> out;
  out.reserve(neurons.size());
  for (const Neuron& n : neurons) out.push_back(n(x));
  return out;
}

Mlp::Mlp(ScalarGraph& graph, std::span<const std::size_t> sizes, Activation hidden_activation, core::Rng& rng) {
  for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
    const bool last = l + 2 == sizes.size();
    layers.emplace_back(graph, sizes[l], sizes[l + 1], last ? Activation::kNone : hidden_activation, rng);
  }
}

std::vector<Value> Mlp::operator()(std::span<const Value> x) const {
  std::vector<Value> h(x.begin(), x.end());
  for (const Layer& layer : layers) h = layer(h);
  return h;
}

std::vector<Value> Mlp::parameters() const {
  std::vector<Value> params;
  for (const Layer& layer : layers) {
    for (const Neuron& n : layer.neurons) params.insert(params.end(), n.weights.begin(), n.weights.end());
    for (const Neuron& n : layer.neurons) params.push_back(n.bias);
  }
  return params;
}

void sgd_step(std::span<const Value> parameters, double lr) {
  for (const Value& p : parameters) p.set_data(p.data() - lr * p.grad());
}

}  // namespace seatorch::scalar
