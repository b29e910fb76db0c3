// Cross-entropy over logits, fused with a numerically stable log-softmax: the training
// loss of every classifier in seatorch.
//
// loss = mean_i (logsumexp(logits_i) - logits_i[label_i]), with the row maximum subtracted
// before exp() so no logit can overflow. The backward is the closed form
// (softmax - onehot) / batch, from the probabilities saved by the forward pass.
// Kernel: asserts contiguity (logits are made contiguous first, labels copied dense).
// Deliberately not here: class weights, label smoothing, reductions other than the mean.
#pragma once

#include "seatorch/tensor/tensor.hpp"

namespace seatorch::tensor {

// logits (batch, classes) F32, labels (batch) I32 in [0, classes) -> a rank-0 F32 loss.
// Throws InputError for a shape mismatch or a label out of range.
Tensor cross_entropy(const Tensor& logits, const Tensor& labels);

}  // namespace seatorch::tensor
