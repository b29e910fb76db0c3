// Losses over scalar Values, built from the primitive ops (so their gradients come from
// the engine, not from hand-written formulas).
#pragma once

#include "seatorch/scalar/value.hpp"

#include <cstddef>
#include <span>

namespace seatorch::scalar {

// mean_i (prediction_i - target_i)^2
Value mse(std::span<const Value> prediction, std::span<const double> target);

// -log softmax(logits)[target], computed as logsumexp(logits) - logits[target] with the
// maximum logit subtracted first so exp() cannot overflow. The shift is a constant: it
// cancels in the value and in the gradient.
Value cross_entropy(std::span<const Value> logits, std::size_t target);

}  // namespace seatorch::scalar
