// libFuzzer target: the CSV reader (data/csv.hpp) with the label column chosen three ways
// (last, by index, by name). Checks: a parsed data set is consistent (x holds samples *
// features finite values, every label is below classes).
#include "fuzz_support.hpp"

#include "seatorch/data/csv.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace seatorch;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (std::string_view label_col : {"", "0", "label"}) {
    fuzz::reject_or_accept([&] {
      const data::Dataset d = data::parse_csv(text, "fuzz.csv", label_col);
      fuzz::require(d.size() >= 1 && d.features >= 1, "at least one sample and one feature");
      fuzz::require(d.x.size() == d.size() * d.features, "x holds samples * features values");
      fuzz::require(d.classes >= 1 && d.classes <= data::kCsvMaxClasses, "classes within the limit");
      for (float v : d.x) fuzz::require(std::isfinite(v), "features are finite");
      for (std::int32_t y : d.y) {
        fuzz::require(y >= 0 && static_cast<std::size_t>(y) < d.classes, "labels below classes");
      }
    });
  }
  return 0;
}
