// A picture of a handwritten digit -> the input of a model trained on MNIST: the steps MNIST's
// authors applied to NIST's scans, so that the user's digit looks like the training data.
//   1. Orientation: MNIST digits are light ink on a dark background. The border pixels decide
//      (their median): a light border means dark ink on paper, and the picture is inverted.
//   2. Background: the border's median plus three median absolute deviations (its noise) is
//      the background level; it becomes 0, and the levels above it are stretched so that the
//      strongest ink is 255 (MNIST's strokes reach 254 or 255). A picture whose ink stands
//      less than kMinInkContrast levels above the background is refused as blank.
//   3. Crop to the bounding box of the ink (every pixel above the background).
//   4. Scale the box to fit a 20 x 20 square (for 28 x 28; 20/28 of the side in general),
//      keeping the aspect ratio, by area averaging: each output pixel is the exact mean of
//      the source area it covers, in integer arithmetic.
//   5. Place it in the 28 x 28 field so that its center of mass (pixel indices weighted by
//      level) is at the pixel nearest to (14, 14), kept inside the field.
// The result is bytes 0..255: exactly what the int8 model and the Mini NPU see; the float
// model sees them / 255, as the data loaders give it MNIST. Integer arithmetic throughout, so
// the same picture gives the same bytes on every machine.
// Deliberately not here: deskewing, denoising beyond the background level, uneven lighting
// (crop a photo to the digit and light it evenly), and Fashion-MNIST's own framing (its
// items fill the 28 x 28 field).
#pragma once

#include "seatorch/image/gray_image.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace seatorch::image {

// Ink must stand at least this many gray levels above the background level.
inline constexpr unsigned kMinInkContrast = 32;

struct DigitInput {
  std::size_t side = 0;              // the model input is side x side
  std::vector<std::uint8_t> pixels;  // (side, side) row-major, 0 background .. 255 ink
  bool inverted = false;             // the picture had a light background (dark ink)
  unsigned background = 0;           // the level that became 0 (after any inversion)
  unsigned ink_max = 0;              // the strongest ink level, stretched to 255
  std::size_t ink_x = 0;             // the ink's bounding box in the picture
  std::size_t ink_y = 0;
  std::size_t ink_width = 0;
  std::size_t ink_height = 0;
  std::size_t scaled_width = 0;  // the box after step 4 (its longer side is 20 for 28)
  std::size_t scaled_height = 0;
};

// The side of a square model input: 784 -> 28. Throws InputError naming `model` when
// `inputs` is not a square number of pixels.
std::size_t square_input_side(std::size_t inputs, std::string_view model);

// Steps 1-5 above for a side x side input; `source` names the picture in errors. Throws
// InputError when the picture holds no ink (blank).
DigitInput prepare_digit(const GrayImage& image, std::size_t side, std::string_view source);

}  // namespace seatorch::image
