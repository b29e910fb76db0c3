// edit_distance(): the optimal string alignment distance, by the textbook dynamic program
// over three rows; nearest_name(): the closest name within the typo budget.
#include "seatorch/core/nearest_name.hpp"

#include <algorithm>
#include <vector>

namespace seatorch::core {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // row[j]: the distance between a[0, i) and b[0, j); prev and prev2 the rows for i - 1, i - 2.
  std::vector<std::size_t> prev2(b.size() + 1), prev(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, row);
  }
  return prev[b.size()];
}

std::optional<std::string> nearest_name(std::string_view typed, std::span<const std::string> names) {
  const std::size_t budget = typed.size() <= 5 ? 1 : 2;
  std::optional<std::string> best;
  std::size_t best_distance = budget + 1;
  for (const std::string& name : names) {
    const std::size_t d = edit_distance(typed, name);
    if (d < best_distance) {
      best = name;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace seatorch::core
