// The `.hex` form of an NPU image (docs/NPU.md, "The .hex file and its manifest"):
// $readmemh text, one 32-bit word per line as 8 hex digits, an `@address` line (the flat
// word address) opening each section, `//` comments; the last section is the one-word image
// CRC at @F00000. Next to it a JSON manifest (manifest.hpp) describes sections, layers and
// CRC for people and tools. The .hex file is self-contained: reading it needs no manifest,
// but a manifest beside it must describe it. Deliberately no other formats (binary, Intel
// HEX): $readmemh is what an RTL testbench loads and what a reader can check by eye.
#pragma once

#include "seatorch/npu/image.hpp"
#include "seatorch/npu/manifest.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::npu {

// The limits read_npu_hex() enforces before it allocates (a hostile file cannot make it
// allocate more than this).
inline constexpr std::size_t kHexMaxLineChars = 256;
inline constexpr std::size_t kHexMaxWords = std::size_t{1} << 22;

// The text of the .hex file.
std::string npu_hex_text(const NpuImage& image);

// Writes the .hex file and its manifest, each atomically (temporary file + rename).
void write_npu_hex(const std::filesystem::path& path, const NpuImage& image);

// The words of .hex text as written: the data sections (addresses as given, names empty)
// and the word of the closing CRC section, unchecked. Throws InputError naming the line
// and the problem when the text is not $readmemh words in sections ending with the CRC.
struct NpuHexWords {
  std::vector<NpuSection> sections;
  std::uint32_t crc = 0;
};
NpuHexWords parse_npu_hex_words(std::string_view text, std::string_view source);

// Parses .hex text (`source` names it in errors) and checks it for `target` as
// npu_image_from_sections() does. Throws InputError naming the line and the problem.
NpuImage parse_npu_hex(std::string_view text, std::string_view source, const NpuTarget& target = default_npu_target());

// Reads and checks a .hex file and, when the manifest beside it (npu_manifest_path) exists,
// checks that it describes the image: a stale or edited manifest is an InputError naming
// both files and what differs. A missing manifest is fine.
// The image is read for the target its manifest names: the .hex words do not say which
// build of the NPU they were laid out for, the manifest does. `target` empty: that one, or
// the default target when there is no manifest; a target named here must be the manifest's,
// or the InputError names both.
NpuImage read_npu_hex(const std::filesystem::path& path, std::string_view target = {});

}  // namespace seatorch::npu
