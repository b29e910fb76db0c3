// Conversions between the engines' weights and FloatMlp, the one plain float-model
// form that checkpoints (quant/float_checkpoint.hpp: PyTorch nn.Sequential state-dict
// names "0.weight", "0.bias", "2.weight", ...), quantization and evaluation share.
//
// Every hidden layer of a seatorch MLP is followed by a ReLU and the last layer is linear,
// so a FloatMlp made here has relu set on all layers but the last. Deliberately not here:
// file formats (float_checkpoint.hpp) and optimizer state.
#pragma once

#include "seatorch/model/float_mlp.hpp"
#include "seatorch/nn/mlp.hpp"
#include "seatorch/nn/state_dict.hpp"

#include <cstddef>
#include <span>
#include <vector>

namespace seatorch::model {

// The tensor engine's MLP as plain arrays, each weight copied once from the tensor that holds
// it (a trainer's evaluation after every epoch starts with this copy; DECISIONS 96).
FloatMlp float_mlp_of(const nn::Mlp& model);

// The scalar engine's parameters (scalar::Mlp::parameters() order: per layer the weights
// row by row, then the biases) for layer sizes {inputs, hidden..., outputs}.
FloatMlp float_mlp_of_scalar(std::span<const std::size_t> sizes, std::span<const double> parameters);

// The weights as a state dict with the checkpoint's names, for nn::Mlp::load_state_dict.
nn::StateDict state_dict_of(const FloatMlp& model);

// The weights in scalar::Mlp::parameters() order.
std::vector<double> scalar_parameters_of(const FloatMlp& model);

// {inputs, hidden..., outputs}
std::vector<std::size_t> layer_sizes(const FloatMlp& model);

}  // namespace seatorch::model
