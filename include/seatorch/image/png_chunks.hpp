// The chunk structure of a PNG file, checked before stb_image decodes it: stb_image 2.27
// skips every chunk's CRC (a flipped bit decodes to wrong pixels without a word), and hands
// a null pointer to memcpy for an empty IDAT chunk (undefined behaviour, found by the `image`
// fuzzer). After the signature each chunk is a 4-byte big-endian length, a 4-byte type, the
// data and the CRC-32 of type and data; IEND ends the file (bytes after it are ignored, as
// every decoder does).
// Deliberately not here: what the chunks mean (stb_image decodes them).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace seatorch::image {

// Throws InputError naming `source` and the chunk (type and byte offset) when a chunk runs
// past the end of the file, its length is above 2^31 - 1, its CRC does not match, or the file
// ends before IEND. Returns the bytes stb_image should decode when they differ from the
// file's: a copy without its empty IDAT chunks (they add nothing to the image data).
std::optional<std::vector<std::uint8_t>> check_png_chunks(std::span<const std::uint8_t> bytes, std::string_view source);

}  // namespace seatorch::image
