// Accuracy and confusion matrix of a tensor-engine MLP on a labelled data set.
//
// Runs the model in evaluation mode (no dropout) under NoGradGuard, in batches, and
// restores the model's previous mode afterwards. The prediction is the first index of the
// largest logit. Deliberately not here: losses or calibration metrics.
#pragma once

#include "seatorch/data/dataset.hpp"
#include "seatorch/model/evaluation.hpp"
#include "seatorch/nn/mlp.hpp"

#include <cstddef>
#include <limits>

namespace seatorch::train {

// Samples [begin, end) of `data` (clamped to its size). Throws InputError when the model's
// input or output size does not match the data set.
model::Evaluation evaluate(nn::Mlp& model, const data::Dataset& data, std::size_t begin = 0,
                    std::size_t end = std::numeric_limits<std::size_t>::max());

}  // namespace seatorch::train
