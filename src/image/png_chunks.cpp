// check_png_chunks(): one pass over the chunks, checking lengths and CRCs.
#include "seatorch/image/png_chunks.hpp"

#include "seatorch/core/crc32.hpp"
#include "seatorch/core/error.hpp"

#include <string>

namespace seatorch::image {
namespace {

constexpr std::size_t kSignatureBytes = 8;
constexpr std::size_t kChunkOverhead = 12;             // length, type, CRC
constexpr std::uint32_t kMaxChunkLength = 0x7FFFFFFF;  // the PNG specification's limit

std::uint32_t be32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
}

}  // namespace

std::optional<std::vector<std::uint8_t>> check_png_chunks(std::span<const std::uint8_t> bytes,
                                                          std::string_view source) {
  std::vector<std::size_t> empty_idat;  // their offsets
  std::size_t pos = kSignatureBytes;
  for (;;) {
    if (bytes.size() - pos < kChunkOverhead) {
      throw core::input_error("{}: truncated: the PNG file ends at byte {} before its IEND chunk", source,
                              bytes.size());
    }
    const std::uint32_t length = be32(bytes.data() + pos);
    const std::string type =
        core::printable(std::string_view(reinterpret_cast<const char*>(bytes.data() + pos + 4), 4));
    if (length > kMaxChunkLength) {
      throw core::input_error("{}: the PNG chunk '{}' at byte {} claims {} bytes, above the format's limit of 2^31 - 1",
                              source, type, pos, length);
    }
    if (bytes.size() - pos - kChunkOverhead < length) {
      throw core::input_error("{}: truncated: the PNG chunk '{}' at byte {} needs {} bytes, the file has {} after it",
                              source, type, pos, length + kChunkOverhead, bytes.size() - pos);
    }
    const std::uint8_t* typed = bytes.data() + pos + 4;  // type and data, what the CRC covers
    const std::uint32_t crc = core::crc32(std::span<const std::uint8_t>(typed, 4 + length));
    const std::uint32_t stored = be32(typed + 4 + length);
    if (crc != stored) {
      throw core::input_error(
          "{}: corrupted: the CRC of the PNG chunk '{}' at byte {} is {:08x}, its data gives {:08x}", source, type, pos,
          stored, crc);
    }
    if (type == "IDAT" && length == 0) empty_idat.push_back(pos);
    pos += kChunkOverhead + length;
    if (type == "IEND") break;
  }
  if (empty_idat.empty()) return std::nullopt;
  std::vector<std::uint8_t> kept;
  std::size_t from = 0;
  for (const std::size_t offset : empty_idat) {
    kept.insert(kept.end(), bytes.begin() + static_cast<std::ptrdiff_t>(from),
                bytes.begin() + static_cast<std::ptrdiff_t>(offset));
    from = offset + kChunkOverhead;
  }
  kept.insert(kept.end(), bytes.begin() + static_cast<std::ptrdiff_t>(from), bytes.end());
  return kept;
}

}  // namespace seatorch::image
