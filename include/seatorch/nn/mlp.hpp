// A sequential MLP classifier: Linear, ReLU, [Dropout,] Linear, ReLU, ..., Linear.
//
// Its parameters carry the state-dict names of the inference-time PyTorch
// nn.Sequential(Linear, ReLU, Linear, ..., Linear): "0.weight" (out, in), "0.bias" (out),
// "2.weight", ... — with or without dropout, which has no parameters and is off after
// training — so every checkpoint loads into that one module. The last Linear produces
// logits (no activation).
// Weights are drawn from one Rng shared across layers in order (see linear.hpp), so the
// same seed gives the scalar engine's initial weights. Dropout masks come from a separate
// Rng seeded by the caller, so turning dropout on does not change the initial weights.
// Deliberately not here: other activations or layer types, and file formats.
#pragma once

#include "seatorch/core/rng.hpp"
#include "seatorch/nn/linear.hpp"
#include "seatorch/nn/state_dict.hpp"
#include "seatorch/tensor/tensor.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace seatorch::nn {

// The widest hidden layer a caller may ask for: 2^16, so that a layer's in x out elements (and
// their bytes) stay far from size_t's limit, and an absurd width is refused by name rather
// than failing as an allocation of terabytes.
inline constexpr std::size_t kMaxHiddenWidth = std::size_t{1} << 16;

// Throws OptionError ("hidden widths") unless every width is in 1..kMaxHiddenWidth.
void check_hidden_widths(std::span<const std::size_t> hidden);

class Mlp {
 public:
  // sizes = {inputs, hidden..., outputs} (at least two, all positive; InputError otherwise);
  // dropout in [0, 1) after every hidden ReLU, 0 for none.
  Mlp(std::span<const std::size_t> sizes, double dropout, core::Rng& init_rng, std::uint64_t dropout_seed = 0);

  Mlp(Mlp&&) = default;
  Mlp& operator=(Mlp&&) = default;
  // Copying would share the parameter tensors (they are handles): forbidden to avoid surprises.
  Mlp(const Mlp&) = delete;
  Mlp& operator=(const Mlp&) = delete;

  // x (batch, inputs) -> logits (batch, outputs). Dropout is active only in training mode.
  [[nodiscard]] tensor::Tensor forward(const tensor::Tensor& x);

  // Moves the dropout Rng past the masks of `samples` training forward passes, as if they
  // had run: how a resumed run continues the dropout stream exactly.
  void advance_dropout(std::size_t samples);

  // Training mode (the default) enables dropout; evaluation mode disables it.
  void set_training(bool on) { training_ = on; }
  [[nodiscard]] bool training() const { return training_; }

  // The parameters in state-dict order: 0.weight, 0.bias, 2.weight, ... (live tensors).
  [[nodiscard]] std::vector<Parameter> parameters() const;
  // Copies of the parameters, for checkpoints.
  [[nodiscard]] StateDict state_dict() const;
  // Loads every parameter from `state`; InputError for a missing, unexpected or mis-shaped
  // tensor, naming it and the architecture.
  void load_state_dict(const StateDict& state);

  [[nodiscard]] const std::vector<Linear>& layers() const { return layers_; }
  [[nodiscard]] const std::vector<std::size_t>& sizes() const { return sizes_; }
  [[nodiscard]] double dropout() const { return dropout_; }
  [[nodiscard]] std::string architecture() const;  // "784-256-128-10"
  [[nodiscard]] std::size_t parameter_count() const;

 private:
  std::vector<std::size_t> sizes_;
  std::vector<Linear> layers_;
  double dropout_;
  bool training_ = true;
  core::Rng dropout_rng_;
};

}  // namespace seatorch::nn
