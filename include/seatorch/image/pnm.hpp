// Netpbm's binary graymap and pixmap (PGM "P5", PPM "P6"), read and written by seatorch
// itself rather than through stb_image: stb_image 2.27's PNM loader overflows a signed int on
// a long number, ignores the maxval, returns uninitialized memory for a truncated file and
// byte-swaps 16-bit samples (docs/RELIABILITY.md, section 1). PGM is also what
// `seatorch predict --save-input` writes, so a user can look at what the model saw.
//
// Reading: magic, then width, height and maxval as decimal numbers separated by whitespace
// and `#` comments, then exactly one whitespace byte and exactly width * height * channels
// samples (one byte each for maxval <= 255, two big-endian bytes above); no trailing bytes.
// Samples are scaled from 0..maxval to 0..255 (rounded) and colour becomes gray as stb_image
// computes it, (77 r + 150 g + 29 b) >> 8, so a picture reads the same in any format.
// Deliberately not here: the ASCII variants (P1-P3), bitmaps (P4), PAM (P7) and multi-image
// files.
#pragma once

#include "seatorch/image/gray_image.hpp"

#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

namespace seatorch::image {

// True when the bytes start with a magic number this reader knows ("P5" or "P6").
bool is_pnm(std::span<const std::uint8_t> bytes);

// Parses a P5 or P6 file's bytes; `source` names it in errors. Throws InputError naming the
// problem (and the limit, for sizes) unless the file is well formed within kMaxImageSide.
GrayImage parse_pnm(std::span<const std::uint8_t> bytes, std::string_view source);

// The image as a P5 file with maxval 255.
std::vector<std::uint8_t> pgm_bytes(const GrayImage& image);

// Writes pgm_bytes(image) to `path` atomically (io::write_file_atomic).
void write_pgm(const std::filesystem::path& path, const GrayImage& image);

}  // namespace seatorch::image
