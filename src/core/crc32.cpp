// CRC-32 through zlib, in pieces that fit its 32-bit length argument.
#include "seatorch/core/crc32.hpp"

#include <zlib.h>

#include <algorithm>
#include <limits>

namespace seatorch::core {

std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc) {
  constexpr std::size_t kMaxPiece = std::numeric_limits<uInt>::max();
  uLong c = crc;
  for (std::size_t at = 0; at < bytes.size(); at += kMaxPiece) {
    const std::size_t n = std::min(kMaxPiece, bytes.size() - at);
    c = ::crc32(c, bytes.data() + at, static_cast<uInt>(n));
  }
  return static_cast<std::uint32_t>(c);
}

}  // namespace seatorch::core
