// libFuzzer target: the picture readers (data/image_file.hpp: stb_image for PNG, BMP and JPEG;
// data/pnm.hpp for PGM/PPM) and the digit preparation (data/digit_image.hpp) on what they
// accept. Checks: an accepted picture is 1..kMaxImageSide on each side and holds exactly
// width * height pixels; it round-trips through the PGM writer and reader unchanged; and
// preparing it for a 784-input model gives exactly 784 bytes with the ink box scaled to at
// most 20 x 20, or throws InputError (a blank picture).
#include "fuzz_support.hpp"

#include "seatorch/data/digit_image.hpp"
#include "seatorch/data/image_file.hpp"
#include "seatorch/data/pnm.hpp"

#include <cstddef>
#include <cstdint>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace seatorch;
  GrayImage image;
  bool accepted = false;
  fuzz::reject_or_accept([&] {
    image = decode_image(std::span<const std::uint8_t>(data, size), "fuzz.img");
    accepted = true;
  });
  if (!accepted) return 0;
  fuzz::require(image.width >= 1 && image.width <= kMaxImageSide, "width within 1..kMaxImageSide");
  fuzz::require(image.height >= 1 && image.height <= kMaxImageSide, "height within 1..kMaxImageSide");
  fuzz::require(image.pixels.size() == image.width * image.height, "pixels = width * height");
  const GrayImage back = parse_pnm(pgm_bytes(image), "fuzz.pgm");
  fuzz::require(back.width == image.width && back.height == image.height && back.pixels == image.pixels,
                "the PGM writer and reader round-trip the picture");
  fuzz::reject_or_accept([&] {
    const DigitInput digit = prepare_digit(image, 28, "fuzz.img");
    fuzz::require(digit.pixels.size() == 784, "a prepared digit has 784 pixels");
    fuzz::require(digit.scaled_width <= 20 && digit.scaled_height <= 20, "the ink box fits 20 x 20");
  });
  return 0;
}
