// The float evaluator and the shared tally (model/evaluate.hpp).
#include "seatorch/model/evaluate.hpp"

#include "seatorch/core/argmax.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/core/parallel.hpp"

#include <algorithm>

namespace seatorch::model {
namespace {

// Samples per batch: bounds each thread's features and activations (128 x 784 floats, 0.4 MB).
// The sparse first layer takes 128 rows at a time anyway, and the evaluation ran as fast as
// at 256 on one thread and on two, with less memory on two (DECISIONS 94).
constexpr std::size_t kEvalBatch = 128;

}  // namespace

void check_model_fits(std::size_t inputs, std::size_t outputs, const data::Dataset& data, std::string_view what) {
  if (inputs != data.features || outputs != data.classes) {
    throw core::input_error(
        "the {} model takes {} inputs and gives {} classes, but the data set has {} features and {} "
        "classes; evaluate it on the data set it was trained on",
        what, inputs, outputs, data.features, data.classes);
  }
}

Evaluation tally_predictions(const data::Dataset& data, const Predictor& predict, std::size_t first,
                             std::size_t count) {
  first = std::min(first, data.size());
  count = std::min(count, data.size() - first);
  std::vector<std::int32_t> predicted(count);  // (count): sample first + s's class at s
  core::parallel_ranges(
      (count + kEvalBatch - 1) / kEvalBatch, 1, 1, [&](std::size_t part, std::size_t batch0, std::size_t batch1) {
        for (std::size_t b = batch0; b < batch1; ++b) {
          const std::size_t s0 = b * kEvalBatch;
          const std::size_t n = std::min(kEvalBatch, count - s0);
          const std::vector<std::int32_t> classes = predict(part, first + s0, n);
          std::copy(classes.begin(), classes.end(), predicted.begin() + static_cast<std::ptrdiff_t>(s0));
        }
      });
  // Tallied in sample order on the caller: a bad label is reported as the first one.
  Evaluation e(data.classes);
  for (std::size_t s = 0; s < count; ++s) e.add(first + s, data.y[first + s], predicted[s]);
  return e;
}

Evaluation evaluate_float(const FloatMlp& model, const data::Dataset& data, std::size_t first, std::size_t count) {
  check_model_fits(model.inputs(), model.outputs(), data, "float");
  // Each part's features and activations, reused from batch to batch.
  struct Scratch {
    std::vector<float> x;  // (batch, inputs)
    ForwardBuffers buffers;
  };
  std::vector<Scratch> scratch(core::threads());
  const FloatForward forward(model);
  return tally_predictions(
      data,
      [&](std::size_t part, std::size_t begin, std::size_t n) {
        Scratch& own = scratch[part];
        own.x.resize(n * model.inputs());
        data.copy_features(begin, n, own.x);
        const std::span<const float> logits = forward.run(own.x, n, own.buffers);  // (n, outputs)
        std::vector<std::int32_t> classes(n);
        for (std::size_t s = 0; s < n; ++s) {
          const auto row = logits.subspan(s * model.outputs(), model.outputs());
          classes[s] = static_cast<std::int32_t>(core::argmax(row));
        }
        return classes;
      },
      first, count);
}

}  // namespace seatorch::model
