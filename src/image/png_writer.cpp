// PNG encoding (png_writer.hpp): signature, IHDR, one IDAT, IEND, each chunk with its CRC.
#include "seatorch/image/png_writer.hpp"

#include "seatorch/core/crc32.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/io/atomic_file.hpp"

#include <zlib.h>

#include <array>
#include <span>
#include <string_view>

namespace seatorch::image {
namespace {

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

// length, type, data, CRC-32 over type and data.
void put_chunk(std::vector<std::uint8_t>& out, std::string_view type, std::span<const std::uint8_t> data) {
  put_u32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t typed = out.size();
  out.insert(out.end(), type.begin(), type.end());
  out.insert(out.end(), data.begin(), data.end());
  put_u32(out, core::crc32(std::span<const std::uint8_t>(out).subspan(typed)));
}

}  // namespace

std::vector<std::uint8_t> png_bytes(const GrayImage& image) {
  if (image.width == 0 || image.height == 0 || image.pixels.size() != image.width * image.height) {
    throw core::input_error("cannot encode a {} x {} image with {} pixels as PNG", image.width, image.height,
                            image.pixels.size());
  }
  std::vector<std::uint8_t> out{0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<std::uint8_t> header;
  put_u32(header, static_cast<std::uint32_t>(image.width));
  put_u32(header, static_cast<std::uint32_t>(image.height));
  header.insert(header.end(), {8, 0, 0, 0, 0});  // 8 bits, grayscale, deflate, filter set 0, no interlace
  put_chunk(out, "IHDR", header);

  std::vector<std::uint8_t> lines;  // (height, 1 + width): filter byte 0, then the row
  lines.reserve(image.height * (image.width + 1));
  for (std::size_t y = 0; y < image.height; ++y) {
    lines.push_back(0);
    const auto row = image.pixels.begin() + static_cast<std::ptrdiff_t>(y * image.width);
    lines.insert(lines.end(), row, row + static_cast<std::ptrdiff_t>(image.width));
  }
  uLongf packed_size = compressBound(static_cast<uLong>(lines.size()));
  std::vector<std::uint8_t> packed(packed_size);
  if (compress2(packed.data(), &packed_size, lines.data(), static_cast<uLong>(lines.size()), Z_BEST_COMPRESSION) !=
      Z_OK) {
    throw core::input_error("zlib could not compress a {} x {} image", image.width, image.height);
  }
  packed.resize(packed_size);
  put_chunk(out, "IDAT", packed);
  put_chunk(out, "IEND", {});
  return out;
}

void write_png(const std::filesystem::path& path, const GrayImage& image) {
  io::write_file_atomic(path, png_bytes(image));
}

}  // namespace seatorch::image
