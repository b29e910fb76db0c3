// Writing a GrayImage as a PNG file: 8-bit grayscale, no interlace, every scanline with
// filter 0, the pixels through zlib. PNG rather than PGM where a picture is meant to be
// looked at in a browser or a Markdown page (the augmentation examples in docs/ACCURACY.md).
// Deliberately not here: colour, other bit depths, filters chosen per line, ancillary chunks.
#pragma once

#include "seatorch/image/gray_image.hpp"

#include <cstdint>
#include <filesystem>
#include <vector>

namespace seatorch::image {

// The image as a PNG file's bytes.
std::vector<std::uint8_t> png_bytes(const GrayImage& image);

// Writes png_bytes(image) to `path` atomically (io::write_file_atomic).
void write_png(const std::filesystem::path& path, const GrayImage& image);

}  // namespace seatorch::image
