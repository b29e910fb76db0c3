// The index of the largest value, the lowest index winning a tie: the rule the Mini NPU's
// argmax (rtl/npu_argmax.sv) implements, and so the one every engine's prediction follows.
// It is the loop `best = 0; for i: if (v[i] > v[best]) best = i`, so a NaN (every comparison
// false) wins only at index 0, and an empty range gives 0.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <iterator>
#include <ranges>

namespace seatorch::core {

// `projection` maps an element to the value compared (for example &Value::data).
template <std::ranges::forward_range Range, typename Projection = std::identity>
std::size_t argmax(const Range& values, Projection projection = {}) {
  // std::ranges::max_element returns the first of equal largest elements.
  const auto best = std::ranges::max_element(values, std::ranges::less{}, projection);
  return static_cast<std::size_t>(std::ranges::distance(std::ranges::begin(values), best));
}

}  // namespace seatorch::core
