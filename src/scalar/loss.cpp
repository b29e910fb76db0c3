// Scalar losses as compositions of primitive ops.
#include "seatorch/scalar/loss.hpp"

#include <algorithm>
#include <cassert>

namespace seatorch::scalar {

Value mse(std::span<const Value> prediction, std::span<const double> target) {
  assert(!prediction.empty() && prediction.size() == target.size());
  Value sum = pow(prediction[0] - target[0], 2.0);
  for (std::size_t i = 1; i < prediction.size(); ++i) sum = sum + pow(prediction[i] - target[i], 2.0);
  return sum / static_cast<double>(prediction.size());
}

Value cross_entropy(std::span<const Value> logits, std::size_t target) {
  assert(!logits.empty() && target < logits.size());
  double shift = logits[0].data();
  for (const Value& l : logits) shift = std::max(shift, l.data());
  Value sum = exp(logits[0] - shift);
  for (std::size_t i = 1; i < logits.size(); ++i) sum = sum + exp(logits[i] - shift);
  return log(sum) + shift - logits[target];
}

}  // namespace seatorch::scalar
