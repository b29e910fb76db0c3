// Batched, gradient-free evaluation with a confusion matrix.
#include "seatorch/train/evaluate.hpp"

#include "batching.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/tensor/autograd.hpp"
#include "seatorch/tensor/reduce.hpp"

#include <numeric>

namespace seatorch::train {
namespace {

// Large batches amortize per-op overhead; 1000 rows of 784 floats is ~3 MB.
constexpr std::size_t kEvalBatch = 1000;

// Restores the model's training flag however the evaluation ends.
class EvalMode {
 public:
  explicit EvalMode(nn::Mlp& model) : model_(model), previous_(model.training()) { model.set_training(false); }
  ~EvalMode() { model_.set_training(previous_); }
  EvalMode(const EvalMode&) = delete;
  EvalMode& operator=(const EvalMode&) = delete;

 private:
  nn::Mlp& model_;
  bool previous_;
};

}  // namespace

model::Evaluation evaluate(nn::Mlp& model, const data::Dataset& data, std::size_t begin, std::size_t end) {
  if (model.sizes().front() != data.features || model.sizes().back() != data.classes) {
    throw core::input_error("a {} model cannot evaluate data with {} features and {} classes", model.architecture(),
                      data.features, data.classes);
  }
  end = std::min(end, data.size());
  begin = std::min(begin, end);
  model::Evaluation e(data.classes);
  const tensor::NoGradGuard no_grad;
  const EvalMode eval_mode(model);
  std::vector<std::size_t> rows;
  for (std::size_t first = begin; first < end; first += kEvalBatch) {
    rows.resize(std::min(kEvalBatch, end - first));
    std::iota(rows.begin(), rows.end(), first);
    const detail::Batch batch = detail::gather_batch(data, rows);
    const std::vector<std::int32_t> predicted = tensor::argmax(model.forward(batch.x), 1).values<std::int32_t>();
    for (std::size_t r = 0; r < rows.size(); ++r) e.add(rows[r], data.y[rows[r]], predicted[r]);
  }
  return e;
}

}  // namespace seatorch::train
