// A decoded picture as seatorch holds it: 8-bit grayscale, one byte per pixel, 0 black and
// 255 white, at most kMaxImageSide pixels on each side. Every image reader (image_file.hpp,
// pnm.hpp) produces this and the digit preprocessing (digit_image.hpp) consumes it.
// Deliberately no colour, alpha or bit depths above 8: readers flatten those on the way in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace seatorch::image {

// The largest width and height an image reader accepts, checked on the header before any
// pixel is allocated: 4096 x 4096 is a 16-megapixel photo, far more than a digit needs.
inline constexpr std::size_t kMaxImageSide = 4096;

struct GrayImage {
  std::size_t width = 0;
  std::size_t height = 0;
  std::vector<std::uint8_t> pixels;  // (height, width) row-major

  [[nodiscard]] std::uint8_t at(std::size_t x, std::size_t y) const { return pixels[y * width + x]; }
};

}  // namespace seatorch::image
