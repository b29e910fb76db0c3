// Weight conversions between the engines and FloatMlp: copies in FloatMlp's layout (weights
// (out, in) row-major, then biases), the tensor engine's Wᵀ (whole or in panels) put back.
#include "seatorch/model/engine_weights.hpp"

#include "seatorch/model/float_checkpoint.hpp"

#include <cassert>

namespace seatorch::model {

FloatMlp float_mlp_of(const nn::Mlp& model) {
  FloatMlp out;
  const std::vector<nn::Linear>& layers = model.layers();
  for (std::size_t k = 0; k < layers.size(); ++k) {
    // to_buffer copies W's values once, straight from the tensor that holds them; moved here.
    nn::NamedBuffer w = nn::to_buffer("weight", layers[k].weight_t, layers[k].layout);
    out.layers.push_back({w.shape[1], w.shape[0], std::move(w.data), layers[k].bias.values(), k + 1 < layers.size()});
  }
  return out;
}

FloatMlp float_mlp_of_scalar(std::span<const std::size_t> sizes, std::span<const double> parameters) {
  FloatMlp out;
  std::size_t at = 0;
  for (std::size_t k = 0; k + 1 < sizes.size(); ++k) {
    DenseLayer layer{sizes[k], sizes[k + 1], {}, {}, k + 2 < sizes.size()};
    for (std::size_t i = 0; i < layer.in * layer.out; ++i) layer.weight.push_back(static_cast<float>(parameters[at++]));
    for (std::size_t j = 0; j < layer.out; ++j) layer.bias.push_back(static_cast<float>(parameters[at++]));
    out.layers.push_back(std::move(layer));
  }
  assert(at == parameters.size());
  return out;
}

nn::StateDict state_dict_of(const FloatMlp& model) {
  nn::StateDict state;
  for (std::size_t k = 0; k < model.layers.size(); ++k) {
    const DenseLayer& layer = model.layers[k];
    state.push_back({nn::sequential_parameter_name(k, "weight"), {layer.out, layer.in}, layer.weight});
    state.push_back({nn::sequential_parameter_name(k, "bias"), {layer.out}, layer.bias});
  }
  return state;
}

std::vector<double> scalar_parameters_of(const FloatMlp& model) {
  std::vector<double> parameters;
  for (const DenseLayer& layer : model.layers) {
    parameters.insert(parameters.end(), layer.weight.begin(), layer.weight.end());
    parameters.insert(parameters.end(), layer.bias.begin(), layer.bias.end());
  }
  return parameters;
}

std::vector<std::size_t> layer_sizes(const FloatMlp& model) {
  std::vector<std::size_t> sizes{model.inputs()};
  for (const DenseLayer& layer : model.layers) sizes.push_back(layer.out);
  return sizes;
}

}  // namespace seatorch::model
