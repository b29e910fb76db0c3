// take_first and split_tail: cuts of a Dataset that keep the files' order.
#include "seatorch/data/split.hpp"

#include "seatorch/core/error.hpp"

#include <cmath>

namespace seatorch::data {

Dataset take_first(Dataset data, std::size_t n) {
  if (n == 0) throw core::option_error("training limit", "a limit of 0 samples selects none; give a positive count");
  if (n >= data.size()) return data;
  return data.slice(0, n);  // a small limit of a large set keeps only the small part
}

HeadTail split_tail(Dataset data, double fraction, std::string_view what) {
  if (!(fraction > 0.0 && fraction < 1.0)) {
    throw core::input_error("{} {}: expected a fraction strictly between 0 and 1", what, fraction);
  }
  const std::size_t n = data.size();
  const auto rounded = static_cast<std::size_t>(std::llround(static_cast<double>(n) * fraction));
  const std::size_t tail_size = rounded == 0 ? 1 : rounded;
  if (tail_size >= n) {
    throw core::input_error("{} {}: {} samples are too few to split into two non-empty parts", what, fraction, n);
  }
  const std::size_t head_size = n - tail_size;
  return HeadTail{data.slice(0, head_size), data.slice(head_size, tail_size)};
}

}  // namespace seatorch::data
