// nn.Linear: y = x W^T + b, with PyTorch's default initialization.
//
// PyTorch initializes Linear with kaiming_uniform_(a = sqrt(5)) for the weight and a
// uniform bias; both work out to U(-1/sqrt(in), 1/sqrt(in)). We draw the whole weight
// matrix row by row, then the bias, from the caller's Rng, exactly as the scalar engine's
// Layer does (src/scalar/mlp.cpp), so the two engines start from the same weights for the
// same seed.
//
// The weight is kept as Wᵀ, (in, out): the layout in which the products read it without a
// copy (tensor::WeightLayout, DECISIONS 83). A layer that takes the data (the MLP's first)
// and has more than one panel's worth of outputs, a multiple of it, keeps Wᵀ in panels of
// kWeightPanel columns, (out / kWeightPanel, in, kWeightPanel), which two threads split
// without sharing a line of it (DECISIONS 92); its input's gradient would then be summed
// panel by panel, which data never needs. Checkpoints still hold PyTorch's (out, in): the
// Mlp's parameters say how theirs is held (nn::Parameter). Deliberately not here: other
// initializations (not needed for the MLP).
#pragma once

#include "seatorch/core/rng.hpp"
#include "seatorch/tensor/matmul.hpp"
#include "seatorch/tensor/tensor.hpp"

#include <cstddef>

namespace seatorch::nn {

// The panel width of an input layer's Wᵀ: one block of the AVX-512 sparse product's columns
// (8 registers of 16 floats), so that a panel is read as one block.
inline constexpr std::size_t kWeightPanel = 128;

class Linear {
 public:
  // input_layer: the layer takes the data, whose gradient is never asked for.
  Linear(std::size_t in, std::size_t out, core::Rng& rng, bool input_layer = false);

  // x (batch, in) -> (batch, out)
  [[nodiscard]] tensor::Tensor forward(const tensor::Tensor& x) const;
  // relu(forward(x)), fused (tensor::linear_relu): a hidden layer of the MLP.
  [[nodiscard]] tensor::Tensor forward_relu(const tensor::Tensor& x) const;

  tensor::WeightLayout layout;  // kInOut, or kInOutPanels for an input layer (above)
  tensor::Tensor
      weight_t;         // W transposed, requires grad: (in, out), or in panels (out / kWeightPanel, in, kWeightPanel)
  tensor::Tensor bias;  // (out), requires grad
};

}  // namespace seatorch::nn
