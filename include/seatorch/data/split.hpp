// Deterministic ways to cut a Dataset: its first N samples (a sample limit) and a head/tail
// split by fraction (a validation part off the training set, the test part of a CSV file).
//
// Both keep the files' order and draw no random numbers, so that the same flags always
// select the same samples; shuffling for training is the trainer's business. A data set
// sorted by class should be shuffled before it is split this way.
#pragma once

#include "seatorch/data/dataset.hpp"

#include <cstddef>
#include <string_view>

namespace seatorch::data {

// The first `n` samples; all of them when n >= data.size(). Throws OptionError ("training
// limit") for n == 0.
Dataset take_first(Dataset data, std::size_t n);

struct HeadTail {
  Dataset head;  // the first samples
  Dataset tail;  // the last round(size * fraction) samples, at least one
};

// Splits off the last `fraction` of the samples. `what` names the split for messages (e.g.
// "the validation fraction"). Throws InputError unless 0 < fraction < 1 and both parts are non-empty.
// Both parts keep `features` and `classes`.
HeadTail split_tail(Dataset data, double fraction, std::string_view what);

}  // namespace seatorch::data
