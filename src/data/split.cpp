// take_first and split_tail: cuts of a Dataset that keep the files' order.
#include "seatorch/data/split.hpp"

#include "seatorch/core/error.hpp"

#include <cmath>
#include <iterator>

namespace seatorch::data {

Dataset take_first(Dataset data, std::size_t n) {
  if (n == 0) throw core::input_error("--limit 0 selects no samples; give a positive count");
  if (n < data.size()) {
    data.x.resize(n * data.features);
    data.y.resize(n);
    // A small limit of a large set: give the rest back (the copy is of the small part).
    data.x.shrink_to_fit();
    data.y.shrink_to_fit();
  }
  return data;
}

HeadTail split_tail(Dataset data, double fraction, std::string_view what) {
  if (!(fraction > 0.0 && fraction < 1.0)) {
    throw core::input_error("{} {}: expected a fraction strictly between 0 and 1", what, fraction);
  }
  const std::size_t n = data.size();
  const auto rounded = static_cast<std::size_t>(std::llround(static_cast<double>(n) * fraction));
  const std::size_t tail_size = rounded == 0 ? 1 : rounded;
  if (tail_size >= n) {
    throw core::input_error("{} {}: {} samples are too few to split into two non-empty parts", what,
                      fraction, n);
  }
  const std::size_t head_size = n - tail_size;
  HeadTail parts;
  parts.tail.features = parts.head.features = data.features;
  parts.tail.classes = parts.head.classes = data.classes;
  const auto x_cut = data.x.begin() + static_cast<std::ptrdiff_t>(head_size * data.features);
  const auto y_cut = data.y.begin() + static_cast<std::ptrdiff_t>(head_size);
  parts.tail.x.assign(x_cut, data.x.end());
  parts.tail.y.assign(y_cut, data.y.end());
  data.x.erase(x_cut, data.x.end());
  data.y.erase(y_cut, data.y.end());
  parts.head = std::move(data);
  return parts;
}

}  // namespace seatorch::data
