// The tally of predictions against labels.
#include "seatorch/model/evaluation.hpp"

#include "seatorch/core/error.hpp"

#include <stdexcept>

namespace seatorch::model {

void Evaluation::add(std::size_t sample, std::int32_t label, std::int32_t predicted) {
  const auto classes = static_cast<std::int64_t>(classes_);
  if (label < 0 || label >= classes) {
    throw core::input_error("sample {} has label {}, outside the data set's {} classes", sample, label, classes_);
  }
  if (predicted < 0 || predicted >= classes) {
    throw std::logic_error("a model predicted class " + std::to_string(predicted) + " of " + std::to_string(classes_));
  }
  ++confusion_[static_cast<std::size_t>(label) * classes_ + static_cast<std::size_t>(predicted)];
  ++samples_;
  correct_ += label == predicted ? 1 : 0;
}

double Evaluation::accuracy() const {
  return samples_ == 0 ? 0.0 : static_cast<double>(correct_) / static_cast<double>(samples_);
}

std::vector<double> Evaluation::per_class_accuracy() const {
  std::vector<double> out(classes_, 0.0);
  for (std::size_t c = 0; c < classes_; ++c) {
    std::size_t row = 0;
    for (std::size_t p = 0; p < classes_; ++p) row += confusion_[c * classes_ + p];
    if (row > 0) out[c] = static_cast<double>(confusion_[c * classes_ + c]) / static_cast<double>(row);
  }
  return out;
}

}  // namespace seatorch::model
