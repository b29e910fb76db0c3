// CRC-32 with a table built at compile time from the polynomial in constants.hpp.
#include "seatorch/npu/crc32.hpp"

#include "seatorch/npu/constants.hpp"

#include <array>

namespace seatorch::npu {
namespace {

constexpr std::array<std::uint32_t, 256> make_table() {
  std::array<std::uint32_t, 256> table{};
  for (std::uint32_t n = 0; n < 256; ++n) {
    std::uint32_t c = n;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1U) ? (c >> 1) ^ kCrcPoly : c >> 1;
    table[n] = c;
  }
  return table;
}

constexpr std::array<std::uint32_t, 256> kTable = make_table();

}  // namespace

void Crc32::update(std::uint8_t byte) { state_ = kTable[(state_ ^ byte) & 0xFFU] ^ (state_ >> 8); }

void Crc32::update(std::span<const std::uint8_t> bytes) {
  for (const std::uint8_t b : bytes) update(b);
}

std::uint32_t crc32(std::span<const std::uint8_t> bytes) {
  Crc32 crc;
  crc.update(bytes);
  return crc.value();
}

}  // namespace seatorch::npu
