// Fused log-softmax + cross-entropy: forward and backward.
#include "seatorch/tensor/loss.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/tensor/autograd.hpp"
#include "seatorch/tensor/elementwise.hpp"
#include "seatorch/tensor/movement.hpp"

#include <algorithm>
#include <cmath>

namespace seatorch::tensor {
namespace {

// ---- backward: d loss / d logits = g * (softmax - onehot) / batch ---------------------
void cross_entropy_backward(const Node& node, const Tensor&, Tensor g) {
  const Tensor& probs = node.saved;  // (batch, classes)
  const std::int32_t* labels = node.inputs[1].data<std::int32_t>();
  const std::size_t batch = probs.shape()[0];
  const std::size_t classes = probs.shape()[1];
  const float scale = g.item() / static_cast<float>(batch);
  const GradSlot slot = grad_slot(node.inputs[0]);
  const float* p = probs.data<float>();
  for (std::size_t i = 0; i < batch; ++i) {
    const float* pi = p + i * classes;
    float* di = slot.data + i * classes;
    if (slot.accumulate) {
      for (std::size_t j = 0; j < classes; ++j) di[j] += pi[j] * scale;
    } else {
      for (std::size_t j = 0; j < classes; ++j) di[j] = pi[j] * scale;
    }
    di[labels[i]] -= scale;
  }
}

}  // namespace

Tensor cross_entropy(const Tensor& logits_in, const Tensor& labels_in) {
  expect_f32(logits_in, "cross_entropy");
  if (logits_in.rank() != 2 || logits_in.shape()[1] == 0) {
    throw core::input_error("cross_entropy: logits must be (batch, classes), got {}", logits_in.shape().str());
  }
  if (!labels_in.defined() || labels_in.dtype() != core::DType::kI32 ||
      !(labels_in.shape() == Shape{logits_in.shape()[0]})) {
    throw core::input_error("cross_entropy: labels must be I32 of shape ({}) for logits {}", logits_in.shape()[0],
                            logits_in.shape().str());
  }
  const Tensor logits = contiguous(logits_in);
  const Tensor labels = labels_in.is_contiguous()
                            ? labels_in
                            : Tensor::from<std::int32_t>(labels_in.values<std::int32_t>(), labels_in.shape());
  const std::size_t batch = logits.shape()[0];
  const std::size_t classes = logits.shape()[1];
  if (batch == 0) throw core::input_error("cross_entropy: the batch is empty");
  const std::int32_t* y = labels.data<std::int32_t>();
  const float* x = logits.data<float>();
  Tensor probs = Tensor::empty(logits.shape());
  float* p = probs.data<float>();
  double total = 0.0;
  for (std::size_t i = 0; i < batch; ++i) {
    if (y[i] < 0 || static_cast<std::size_t>(y[i]) >= classes) {
      throw core::input_error("cross_entropy: label {} of sample {} is outside [0, {})", y[i], i, classes);
    }
    const float* xi = x + i * classes;
    float* pi = p + i * classes;
    const float shift = *std::max_element(xi, xi + classes);
    float sum = 0.0f;
    for (std::size_t j = 0; j < classes; ++j) {
      pi[j] = std::exp(xi[j] - shift);
      sum += pi[j];
    }
    const float inv = 1.0f / sum;
    for (std::size_t j = 0; j < classes; ++j) pi[j] *= inv;
    // -log softmax[y] = logsumexp - x[y] = shift + log(sum) - x[y]
    total += static_cast<double>(shift + std::log(sum) - xi[y[i]]);
  }
  Tensor loss = Tensor::scalar(static_cast<float>(total / static_cast<double>(batch)));
  if (Node* node = record(loss, "cross_entropy", cross_entropy_backward, logits, labels)) {
    node->saved = std::move(probs);
  }
  return loss;
}

}  // namespace seatorch::tensor
