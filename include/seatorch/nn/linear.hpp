// nn.Linear: y = x W^T + b, with PyTorch's default initialization.
//
// PyTorch initializes Linear with kaiming_uniform_(a = sqrt(5)) for the weight and a
// uniform bias; both work out to U(-1/sqrt(in), 1/sqrt(in)). We draw the whole weight
// matrix row by row, then the bias, from the caller's Rng, exactly as the scalar engine's
// Layer does (src/scalar/mlp.cpp), so the two engines start from the same weights for the
// same seed.
//
// The weight is kept as Wᵀ, (in, out): the layout in which the products read it without a
// copy (tensor::WeightLayout, DECISIONS 83). Checkpoints still hold PyTorch's (out, in):
// the Mlp's parameters say that theirs is stored transposed (nn::Parameter). Deliberately
// not here: other initializations (not needed for the MLP).
#pragma once

#include "seatorch/core/rng.hpp"
#include "seatorch/tensor/tensor.hpp"

#include <cstddef>

namespace seatorch::nn {

class Linear {
 public:
  Linear(std::size_t in, std::size_t out, core::Rng& rng);

  // x (batch, in) -> (batch, out)
  [[nodiscard]] tensor::Tensor forward(const tensor::Tensor& x) const;
  // relu(forward(x)), fused (tensor::linear_relu): a hidden layer of the MLP.
  [[nodiscard]] tensor::Tensor forward_relu(const tensor::Tensor& x) const;

  tensor::Tensor weight_t;  // (in, out): W transposed, requires grad
  tensor::Tensor bias;      // (out), requires grad
};

}  // namespace seatorch::nn
