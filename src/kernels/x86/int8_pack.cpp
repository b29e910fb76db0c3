// Weight packing and scratch for the x86 int8 gemm kernels: plain C++, compiled without ISA
// flags.
#include "int8_kernels_x86.hpp"

#include <cstring>

namespace seatorch::kernels::x86 {
namespace {

// Weight j, p of B at its place in the (blocks, k4, rows, 4) layout, each as `Element`; k4, the
// groups of 4 a block holds, rounded up to a multiple of `groups` (the padding is zeros).
template <class Element>
std::vector<std::int8_t> pack_blocked(std::span<const std::int8_t> b, std::size_t n, std::size_t k, std::size_t rows,
                                      std::size_t groups = 1) {
  const std::size_t k4 = (k + 4 * groups - 1) / (4 * groups) * groups;
  const std::size_t blocks = (n + rows - 1) / rows;
  std::vector<std::int8_t> packed(blocks * k4 * rows * 4 * sizeof(Element), 0);  // (blocks, k4, rows, 4)
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t p = 0; p < k; ++p) {
      const Element w = b[j * k + p];
      const std::size_t at = ((j / rows) * k4 + p / 4) * rows * 4 + (j % rows) * 4 + p % 4;
      std::memcpy(packed.data() + at * sizeof(Element), &w, sizeof(Element));  // little-endian x86
    }
  }
  return packed;
}

}  // namespace

std::vector<std::int8_t> pack_b_blocked(std::span<const std::int8_t> b, std::size_t n, std::size_t k,
                                        std::size_t rows) {
  return pack_blocked<std::int8_t>(b, n, k, rows);
}

std::vector<std::int8_t> pack_b_blocked_int16(std::span<const std::int8_t> b, std::size_t n, std::size_t k,
                                              std::size_t rows) {
  return pack_blocked<std::int16_t>(b, n, k, rows);
}

std::vector<std::int8_t> pack_b_tiles(std::span<const std::int8_t> b, std::size_t n, std::size_t k) {
  return pack_blocked<std::int8_t>(b, n, k, kAvx512Rows, kAmxTileGroups);
}

AmxScratch amx_scratch(std::size_t act_bytes, std::size_t tiles) {
  constexpr std::size_t kLine = 64;  // the tile rows are aligned vector stores
  thread_local std::vector<std::uint8_t> acts;
  thread_local std::vector<std::uint64_t> lit;
  thread_local std::vector<std::uint32_t> byte_sums;
  if (acts.size() < act_bytes + kLine) acts.resize(act_bytes + kLine);
  if (lit.size() < tiles) lit.resize(tiles);
  if (byte_sums.size() < tiles * kAmxTileImages) byte_sums.resize(tiles * kAmxTileImages);
  const auto address = reinterpret_cast<std::uintptr_t>(acts.data());
  return {acts.data() + (kLine - address % kLine) % kLine, lit.data(), byte_sums.data()};
}

std::uint16_t* widened_activations(std::size_t count) {
  thread_local std::vector<std::uint16_t> scratch;
  if (scratch.size() < count) scratch.resize(count);
  return scratch.data();
}

LitScratch lit_scratch(std::size_t m, std::size_t words, std::size_t n) {
  thread_local std::vector<std::uint64_t> row_lit;
  thread_local std::vector<std::uint32_t> order;
  thread_local std::vector<std::uint8_t> u;
  if (row_lit.size() < m * words) row_lit.resize(m * words);
  if (order.size() < m) order.resize(m);
  if (u.size() < m * n) u.resize(m * n);
  return {row_lit.data(), order.data(), u.data()};
}

}  // namespace seatorch::kernels::x86
