// Evaluating a model on a labelled data set: the float evaluator, and the batching and
// tallying that every evaluator shares (the int8 one, quant/evaluate.hpp, is built on it).
//
// The prediction is the first index of the largest logit. The float model sees image data
// as pixel_value(p) = p / 255 (kernels/pixel_values.hpp), converted here one batch at a
// time, so a data set is never held as floats for evaluation. Every float evaluation in
// seatorch (the trainers' per-epoch and final figures, `seatorch eval`, quantize's float
// baseline) is this one function. Deliberately not here: loading data or models, and printing.
#pragma once

#include "seatorch/data/dataset.hpp"
#include "seatorch/model/evaluation.hpp"
#include "seatorch/model/float_mlp.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string_view>
#include <vector>

namespace seatorch::model {

inline constexpr std::size_t kAllSamples = std::numeric_limits<std::size_t>::max();

// Throws InputError when a model of `inputs` inputs and `outputs` classes cannot evaluate
// `data`; `what` names the model ("float", "int8").
void check_model_fits(std::size_t inputs, std::size_t outputs, const data::Dataset& data, std::string_view what);

// The predicted classes of samples [first, first + count) of the data set, (count). Called
// from several threads at once, each batch as `part` p < core::threads() of a loop, no two
// calls at once with the same part: a predictor keeps its scratch per part.
using Predictor = std::function<std::vector<std::int32_t>(std::size_t part, std::size_t first, std::size_t count)>;

// Samples [first, first + count) (clamped to the data set), predicted batch by batch and
// tallied against their labels. The batches are split across the threads
// (core::parallel_ranges), each running its own forwards, whose products then run inline:
// with each batch's products split across two cores instead, the test set's evaluation on
// Zen 5 took 0.8 (the cores near) to 1.2 (far apart) times one core's time, since each
// product is small and the cores exchange every layer's activations (DECISIONS 94). A
// sample's prediction depends on its own row alone, so the tally is the same on any thread
// count.
Evaluation tally_predictions(const data::Dataset& data, const Predictor& predict, std::size_t first = 0,
                             std::size_t count = kAllSamples);

// The float model on samples [first, first + count) of `data` (clamped to its size).
Evaluation evaluate_float(const FloatMlp& model, const data::Dataset& data, std::size_t first = 0,
                          std::size_t count = kAllSamples);

}  // namespace seatorch::model
