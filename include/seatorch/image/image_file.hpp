// Reading a picture file (the user's own digit) into a GrayImage: PNG and BMP through
// stb_image, binary PGM/PPM through pnm.hpp. Colour becomes gray as stb_image computes it,
// (77 r + 150 g + 29 b) >> 8; a transparent pixel is composited over white (as a browser
// shows it), so a digit drawn on a transparent canvas keeps its background light.
//
// Hardening (docs/RELIABILITY.md, section 1): the bytes come through io::read_file within
// kMaxImageFileBytes; a PNG file's chunk lengths and CRCs are checked (png_chunks.hpp); the
// header is read first, by the format's own stb_image reader, and a width or height outside
// 1..kMaxImageSide is refused before any pixel is allocated; every allocation stb_image asks
// for is capped at kMaxImageDecodeAllocation (a zlib bomb in a PNG cannot grow its buffer
// past it); and a file whose pixel data ends early is refused, where stb_image alone would
// fill the missing rows with zeros. Every failure is one InputError naming the file, with
// stb_image's own reason quoted through seatorch::printable.
// Deliberately not here: other formats. JPEG is refused: stb_image 2.27's JPEG decoder failed
// the fuzzer within a second (an out-of-bounds write building a Huffman table); GIF, TGA,
// PSD, HDR and PIC are compiled out of stb_image and the ASCII netpbm variants refused.
// Nor animation, EXIF orientation or colour profiles.
#pragma once

#include "seatorch/image/gray_image.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

namespace seatorch::image {

// The largest uncompressed picture of kMaxImageSide, a 16-bit PPM (96 MiB), and its header.
inline constexpr std::size_t kMaxImageFileBytes = std::size_t{128} << 20;
// The largest single buffer decoding may take: twice the 134 MB of inflated data of a 16-bit
// RGBA PNG of 4096 x 4096 (stb_image guesses that size and doubles the buffer when an
// interlaced image's extra filter bytes overflow it).
inline constexpr std::size_t kMaxImageDecodeAllocation = std::size_t{320} << 20;

// "PNG, BMP or binary PGM/PPM", for help texts and messages.
std::string_view readable_image_formats();

// Decodes a picture file's bytes; `source` names it in errors. Throws InputError when the
// format is not one of readable_image_formats(), the file is malformed or truncated, or the
// image is larger than kMaxImageSide on a side.
GrayImage decode_image(std::span<const std::uint8_t> bytes, std::string_view source);

// Reads (io::read_file, at most kMaxImageFileBytes) and decodes the picture at `path`.
GrayImage read_image(const std::filesystem::path& path);

}  // namespace seatorch::image
