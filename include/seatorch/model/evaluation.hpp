// Evaluation: predicted classes tallied against labels - the count, the accuracy and the
// confusion matrix. One type for every model seatorch evaluates: the tensor engine's MLP
// (train/evaluate), the float and the int8 inference paths (quant/evaluate).
// Deliberately only the tally: running a model is the caller's business.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace seatorch::model {

class Evaluation {
 public:
  explicit Evaluation(std::size_t classes = 0) : classes_(classes), confusion_(classes * classes, 0) {}

  // One sample of true class `label`, predicted as `predicted`. Throws InputError naming
  // `sample` when the label is outside [0, classes); a prediction outside that range is a
  // bug in the model code and throws std::logic_error.
  void add(std::size_t sample, std::int32_t label, std::int32_t predicted);

  [[nodiscard]] std::size_t classes() const { return classes_; }
  [[nodiscard]] std::size_t samples() const { return samples_; }
  [[nodiscard]] std::size_t correct() const { return correct_; }
  // correct / samples; 0 for no samples.
  [[nodiscard]] double accuracy() const;
  // Per true class: the fraction predicted correctly (recall); 0 for a class with no samples.
  [[nodiscard]] std::vector<double> per_class_accuracy() const;
  // (classes, classes): [true label][predicted label]
  [[nodiscard]] const std::vector<std::size_t>& confusion() const { return confusion_; }

 private:
  std::size_t classes_;
  std::size_t samples_ = 0;
  std::size_t correct_ = 0;
  std::vector<std::size_t> confusion_;  // (classes, classes)
};

}  // namespace seatorch::model
