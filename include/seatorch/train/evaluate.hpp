// Accuracy and confusion matrix of a tensor-engine MLP on a labelled data set.
//
// Runs the model in evaluation mode (no dropout) under NoGradGuard, in batches, and
// restores the model's previous mode afterwards. The prediction is the first index of the
// largest logit. Deliberately not here: losses or calibration metrics.
#pragma once

#include "seatorch/data/dataset.hpp"
#include "seatorch/nn/mlp.hpp"

#include <cstddef>
#include <limits>
#include <vector>

namespace seatorch {

struct Evaluation {
  std::size_t samples = 0;
  std::size_t correct = 0;
  double accuracy = 0.0;               // correct / samples (0 for no samples)
  std::size_t classes = 0;
  std::vector<std::size_t> confusion;  // (classes, classes): [true label][predicted label]

  // Per true class: the fraction predicted correctly (recall); 0 for a class with no samples.
  [[nodiscard]] std::vector<double> per_class_accuracy() const;
};

// Samples [begin, end) of `data` (clamped to its size). Throws InputError when the model's
// input or output size does not match the data set.
Evaluation evaluate(nn::Mlp& model, const Dataset& data, std::size_t begin = 0,
                    std::size_t end = std::numeric_limits<std::size_t>::max());

}  // namespace seatorch
