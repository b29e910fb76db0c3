// libFuzzer target: the picture readers (data/image_file.hpp: stb_image for PNG and BMP after
// the PNG chunk check, JPEG refused; data/pnm.hpp for PGM/PPM) and the digit preparation
// (data/digit_image.hpp) on what they accept. Checks: an accepted picture is
// 1..kMaxImageSide on each side and holds exactly width * height pixels; it round-trips
// through the PGM writer and reader unchanged; and preparing it for a 784-input model gives
// exactly 784 bytes with the ink box scaled to at most 20 x 20, or throws InputError (a blank
// picture). A mutated PNG almost never carries matching chunk CRCs, so each PNG input is also
// decoded with its CRCs recomputed: that is what reaches stb_image.
#include "fuzz_support.hpp"

#include "seatorch/image/digit_image.hpp"
#include "seatorch/image/image_file.hpp"
#include "seatorch/image/pnm.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace {

using namespace seatorch;

void decode_and_check(std::span<const std::uint8_t> bytes) {
  image::GrayImage image;
  bool accepted = false;
  fuzz::reject_or_accept([&] {
    image = image::decode_image(bytes, "fuzz.img");
    accepted = true;
  });
  if (!accepted) return;
  fuzz::require(image.width >= 1 && image.width <= image::kMaxImageSide, "width within 1..kMaxImageSide");
  fuzz::require(image.height >= 1 && image.height <= image::kMaxImageSide, "height within 1..kMaxImageSide");
  fuzz::require(image.pixels.size() == image.width * image.height, "pixels = width * height");
  const image::GrayImage back = image::parse_pnm(image::pgm_bytes(image), "fuzz.pgm");
  fuzz::require(back.width == image.width && back.height == image.height && back.pixels == image.pixels,
                "the PGM writer and reader round-trip the picture");
  fuzz::reject_or_accept([&] {
    const image::DigitInput digit = image::prepare_digit(image, 28, "fuzz.img");
    fuzz::require(digit.pixels.size() == 784, "a prepared digit has 784 pixels");
    fuzz::require(digit.scaled_width <= 20 && digit.scaled_height <= 20, "the ink box fits 20 x 20");
  });
}

// The bytes with the CRC of every complete chunk after the PNG signature recomputed.
std::vector<std::uint8_t> with_png_crcs_fixed(std::span<const std::uint8_t> bytes) {
  std::vector<std::uint8_t> out(bytes.begin(), bytes.end());
  for (std::size_t pos = 8; out.size() - pos >= 12;) {
    const std::uint32_t length = std::uint32_t{out[pos]} << 24 | std::uint32_t{out[pos + 1]} << 16 |
                                 std::uint32_t{out[pos + 2]} << 8 | out[pos + 3];
    if (length > out.size() - pos - 12) break;
    const auto crc = static_cast<std::uint32_t>(crc32(0L, out.data() + pos + 4, static_cast<uInt>(4 + length)));
    for (int i = 0; i < 4; ++i) out[pos + 8 + length + i] = static_cast<std::uint8_t>(crc >> (24 - 8 * i));
    pos += 12 + length;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  decode_and_check(bytes);
  if (size >= 8 && std::memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0) {
    const std::vector<std::uint8_t> fixed = with_png_crcs_fixed(bytes);
    if (!std::equal(fixed.begin(), fixed.end(), bytes.begin())) decode_and_check(fixed);
  }
  return 0;
}
