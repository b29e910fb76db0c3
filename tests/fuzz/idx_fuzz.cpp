// libFuzzer target: the IDX reader on raw and gzip input (data/idx.hpp, data/data_file.hpp),
// as read_idx does: gunzip when the bytes start with the gzip magic, then parse_idx, tried
// as a label file and as an image file. Checks: a parsed array holds exactly
// items * rows * cols values within the header limits.
#include "fuzz_support.hpp"

#include "seatorch/data/data_file.hpp"
#include "seatorch/data/idx.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace {

// Far below kMaxDataFileBytes, so that a zip bomb stays within libFuzzer's memory limit;
// the code path (the limit check) is the same.
constexpr std::size_t kMaxInflated = std::size_t{1} << 24;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace seatorch;
  std::span<const std::uint8_t> bytes(data, size);
  std::vector<std::uint8_t> inflated;
  if (data::is_gzip(bytes)) {
    bool ok = false;
    fuzz::reject_or_accept([&] {
      inflated = data::gunzip(bytes, "fuzz.gz", kMaxInflated);
      ok = true;
    });
    if (!ok) return 0;
    fuzz::require(inflated.size() <= kMaxInflated, "gunzip output within its limit");
    bytes = inflated;
  }
  for (data::IdxKind kind : {data::IdxKind::kLabels, data::IdxKind::kImages}) {
    fuzz::reject_or_accept([&] {
      const data::IdxArray a = data::parse_idx(std::vector<std::uint8_t>(bytes.begin(), bytes.end()), kind, "fuzz.idx");
      fuzz::require(a.items >= 1 && a.items <= data::kIdxMaxItems, "items within the limit");
      fuzz::require(a.rows >= 1 && a.rows <= data::kIdxMaxSide && a.cols >= 1 && a.cols <= data::kIdxMaxSide,
                    "sides within the limit");
      fuzz::require(a.values.size() == a.items * a.rows * a.cols, "values = items * rows * cols");
    });
  }
  return 0;
}
