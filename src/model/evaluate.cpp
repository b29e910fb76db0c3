// The float evaluator and the shared tally (model/evaluate.hpp).
#include "seatorch/model/evaluate.hpp"

#include "seatorch/core/argmax.hpp"
#include "seatorch/core/error.hpp"

#include <algorithm>

namespace seatorch::model {
namespace {

// Samples per batch: bounds the temporary features and activations (256 x 784 floats, 0.8 MB).
constexpr std::size_t kEvalBatch = 256;

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
  const std::size_t end = first + std::min(count, data.size() - first);
  Evaluation e(data.classes);
  for (std::size_t begin = first; begin < end; begin += kEvalBatch) {
    const std::size_t n = std::min(kEvalBatch, end - begin);
    const std::vector<std::int32_t> predicted = predict(begin, n);
    for (std::size_t s = 0; s < n; ++s) e.add(begin + s, data.y[begin + s], predicted[s]);
  }
  return e;
}

Evaluation evaluate_float(const FloatMlp& model, const data::Dataset& data, std::size_t first, std::size_t count) {
  check_model_fits(model.inputs(), model.outputs(), data, "float");
  std::vector<float> x;  // (batch, inputs), reused from batch to batch like the activations
  ForwardBuffers buffers;
  const FloatForward forward(model);
  return tally_predictions(
      data,
      [&](std::size_t begin, std::size_t n) {
        x.resize(n * model.inputs());
        data.copy_features(begin, n, x);
        const std::span<const float> logits = forward.run(x, n, buffers);  // (n, outputs)
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
