// Inverted dropout: in training, each element is zeroed with probability p and the
// survivors are scaled by 1/(1-p), so evaluation needs no rescaling and is the identity.
//
// A composite: x * mask, with the mask (0 or 1/(1-p), x's shape) drawn from the caller's
// seatorch::Rng in row-major order, so the same seed drops the same units. Its gradient is
// mul's: g * mask. Kernel: handles any strides (it is elementwise mul).
#pragma once

#include "seatorch/core/rng.hpp"
#include "seatorch/tensor/tensor.hpp"

namespace seatorch::tensor {

// p in [0, 1) (InputError otherwise). With training false or p == 0, returns x itself.
Tensor dropout(const Tensor& x, double p, bool training, core::Rng& rng);

}  // namespace seatorch::tensor
