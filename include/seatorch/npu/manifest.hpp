// The JSON manifest written beside every NPU .hex image (docs/NPU.md, "The .hex file and its
// manifest"): format, the target the image is laid out for, lanes, CRC, the sections (name,
// address, word count) and the layer table, plus values derived from them (architecture,
// sizes, total words, MACs) for people and tools. The writer, a strict reader (typed fields,
// bounded counts, every derived value checked against the tables) and the check that a
// manifest describes a given image.
// Deliberately not here: the image's words. The .hex file is self-contained; the manifest is
// a description of it, so a missing manifest is fine, but a present one must agree with it.
#pragma once

#include "seatorch/npu/image.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::npu {

// The limits the manifest reader enforces (a manifest of the largest image is a few kB).
inline constexpr std::size_t kManifestMaxFileBytes = std::size_t{1} << 20;
inline constexpr std::size_t kManifestMaxSections = 16;
inline constexpr std::size_t kManifestMaxLayers = 255;  // the header's 8-bit layer count
inline constexpr std::size_t kManifestMaxNameBytes = 32;

struct NpuManifestSection {
  std::string name;
  std::uint32_t address = 0;  // flat word address
  std::size_t words = 0;

  bool operator==(const NpuManifestSection&) const = default;
};

// What a manifest states; the derived values it also prints are methods, never stored, so
// a parsed manifest cannot contradict itself.
struct NpuManifest {
  std::uint32_t format_version = kFormatVersion;
  std::string target = "default";  // an npu_targets() name
  std::size_t lanes = kLanes;
  std::uint32_t crc = 0;                     // the image CRC-32
  std::vector<NpuManifestSection> sections;  // the data sections in load order (not the CRC)
  std::vector<NpuLayerInfo> layers;

  [[nodiscard]] std::size_t total_words() const;

  bool operator==(const NpuManifest&) const = default;
};

// The manifest of `image`.
NpuManifest npu_manifest_of(const NpuImage& image);

// The manifest as JSON: its fields plus architecture, input/output size, total words, MACs,
// the CRC in hex, a closing "crc" section entry and each layer's MACs.
nlohmann::json npu_manifest_json(const NpuManifest& manifest);
nlohmann::json npu_manifest(const NpuImage& image);  // npu_manifest_json(npu_manifest_of(image))

// model.hex -> model.manifest.json
std::filesystem::path npu_manifest_path(const std::filesystem::path& hex_path);

// Parses manifest text (`source` names it in errors). Throws InputError naming the field and
// what was expected: bad JSON, a missing, unknown or mistyped field, a value out of range, a
// count over the limits above, or a derived value that contradicts the tables. A manifest
// without "target" was written before there were targets: it describes a default-target image.
NpuManifest parse_npu_manifest(std::string_view text, std::string_view source);

// Reads and parses a manifest file (at most kManifestMaxFileBytes).
NpuManifest read_npu_manifest(const std::filesystem::path& path);

// Throws InputError when `manifest` (from `manifest_source`) does not describe `image` (from
// `hex_source`): one line naming both files, the differences and how to fix it.
void check_npu_manifest(const NpuManifest& manifest, const NpuImage& image, std::string_view manifest_source,
                        std::string_view hex_source);

}  // namespace seatorch::npu
