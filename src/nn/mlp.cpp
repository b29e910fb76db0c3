// The MLP: construction, forward, and the state-dict view of its parameters.
#include "seatorch/nn/mlp.hpp"

#include "seatorch/nn/state_dict.hpp"

#include "seatorch/core/architecture.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/tensor/dropout.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace seatorch::nn {
namespace {

std::vector<Linear> make_layers(std::span<const std::size_t> sizes, core::Rng& rng) {
  if (sizes.size() < 2) throw core::input_error("an MLP needs at least an input and an output size");
  for (std::size_t s : sizes) {
    if (s == 0) throw core::input_error("MLP sizes must be positive, got {}", core::architecture_name(sizes));
  }
  std::vector<Linear> layers;
  for (std::size_t l = 0; l + 1 < sizes.size(); ++l) layers.emplace_back(sizes[l], sizes[l + 1], rng, l == 0);
  return layers;
}

}  // namespace

void check_hidden_widths(std::span<const std::size_t> hidden) {
  for (const std::size_t width : hidden) {
    if (width == 0 || width > kMaxHiddenWidth) {
      throw core::option_error("hidden widths", "every hidden-layer width must be in 1..{}, got {}", kMaxHiddenWidth,
                               width);
    }
  }
}

Mlp::Mlp(std::span<const std::size_t> sizes, double dropout, core::Rng& init_rng, std::uint64_t dropout_seed)
    : sizes_(sizes.begin(), sizes.end()),
      layers_(make_layers(sizes, init_rng)),
      dropout_(dropout),
      dropout_rng_(dropout_seed) {
  if (!(dropout >= 0.0 && dropout < 1.0))
    throw core::option_error("dropout", "the dropout probability must be in [0, 1), got {}", dropout);
}

tensor::Tensor Mlp::forward(const tensor::Tensor& x) {
  tensor::Tensor h = x;  // an MLP has at least one layer (make_layers)
  for (std::size_t l = 0; l + 1 < layers_.size(); ++l) {
    h = layers_[l].forward_relu(h);
    if (dropout_ > 0.0) h = tensor::dropout(h, dropout_, training_, dropout_rng_);
  }
  return layers_.back().forward(h);
}

void Mlp::advance_dropout(std::size_t samples) {
  if (dropout_ == 0.0) return;
  // forward() draws one uniform per hidden activation, layer by layer.
  std::size_t draws = 0;
  for (std::size_t l = 1; l + 1 < sizes_.size(); ++l) draws += samples * sizes_[l];
  for (std::size_t i = 0; i < draws; ++i) dropout_rng_.uniform();
}

std::vector<Parameter> Mlp::parameters() const {
  // The inference-time nn.Sequential(Linear, ReLU, ..., Linear) numbering, with or without
  // dropout: dropout has no parameters and no effect after training, and one naming keeps
  // every checkpoint loadable into the same PyTorch module.
  std::vector<Parameter> params;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    params.push_back({nn::sequential_parameter_name(l, "weight"), layers_[l].weight_t, layers_[l].layout});
    params.push_back({nn::sequential_parameter_name(l, "bias"), layers_[l].bias});
  }
  return params;
}

StateDict Mlp::state_dict() const {
  StateDict state;
  for (const Parameter& p : parameters()) state.push_back(to_buffer(p.name, p.tensor, p.layout));
  return state;
}

void Mlp::load_state_dict(const StateDict& state) {
  const std::string owner = fmt::format("loading a {} MLP", architecture());
  std::vector<std::string> names;
  for (const Parameter& p : parameters()) names.push_back(p.name);
  reject_unexpected(state, names, owner);
  for (const Parameter& p : parameters()) {
    const NamedBuffer* b = find_buffer(state, p.name);
    if (b == nullptr) throw core::input_error("{}: tensor '{}' is missing", owner, p.name);
    copy_into(*b, p.tensor, owner, p.layout);
  }
}

std::string Mlp::architecture() const { return core::architecture_name(sizes_); }

std::size_t Mlp::parameter_count() const {
  std::size_t n = 0;
  for (const Parameter& p : parameters()) n += p.tensor.numel();
  return n;
}

}  // namespace seatorch::nn
