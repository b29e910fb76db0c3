// Bit-for-bit comparison of float buffers, for the tests whose oracle must match exactly: a
// fast path against its reference, many threads against one, a fused op against the ops it
// fuses. It compares the bits, not the values, so that -0 against +0 and one NaN against
// another count as differences. Each test names the element it finds in its own terms (C[i, j],
// image and pixel, a moment of the optimizer).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace seatorch::test {

// The index of the first element whose bits differ, or nullopt when both are the same bits.
// Buffers of different lengths differ at the end of the shorter one.
inline std::optional<std::size_t> first_bit_difference(std::span<const float> got, std::span<const float> want) {
  const std::size_t common = std::min(got.size(), want.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (std::bit_cast<std::uint32_t>(got[i]) != std::bit_cast<std::uint32_t>(want[i])) return i;
  }
  if (got.size() != want.size()) return common;
  return std::nullopt;
}

}  // namespace seatorch::test
