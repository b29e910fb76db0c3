// The Mini NPU's model image (docs/NPU.md, "The model image"): the memory contents laid out
// from an Int8Model for one NPU target (target.hpp), that the .hex file stores and that
// NpuSession::load() sends over the UART. An image is five sections of 32-bit words at flat
// NPU addresses - header + layer descriptors, biases, multipliers, shifts, weights - named by
// NpuSection::Id, its decoded layer table, and the CRC-32 of the sections' bytes.
// The image's jobs each have their own file:
//   image_builder.hpp  Int8Model -> image (build_npu_image), refusing what the target cannot run
//   image_decode.hpp   sections read from a file -> checked image, and image -> Int8Model
//   timing.hpp         the clock cycles a target takes to run an image
// Deliberately not here: files (hex.hpp) and the wire protocol (frame.hpp, session.hpp).
#pragma once

#include "seatorch/npu/constants.hpp"
#include "seatorch/npu/target.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::npu {

// The flat word address where region `region` starts.
constexpr std::uint32_t region_base(std::uint32_t region) { return region << kRegionLsb; }

struct NpuSection {
  // The five data sections in load order; the value is the section's index in an image.
  enum class Id : std::size_t { kHeader, kBias, kMultiplier, kShift, kWeights };

  std::string name;           // npu_section_name(): header, bias, multiplier, shift, weights
  std::uint32_t address = 0;  // flat word address of words[0]
  std::vector<std::uint32_t> words;
};

inline constexpr std::size_t kNpuSectionCount = 5;
inline constexpr std::array<NpuSection::Id, kNpuSectionCount> kNpuSectionIds = {
    NpuSection::Id::kHeader, NpuSection::Id::kBias, NpuSection::Id::kMultiplier, NpuSection::Id::kShift,
    NpuSection::Id::kWeights};

constexpr std::size_t section_index(NpuSection::Id id) { return static_cast<std::size_t>(id); }
// "header", "bias", "multiplier", "shift", "weights".
std::string_view npu_section_name(NpuSection::Id id);
// Each section starts its region (constants.hpp): DMEM, bias, multiplier, shift, WMEM.
std::uint32_t npu_section_address(NpuSection::Id id);

// The section `id` of sections in load order (an image's, or ones just read from a file).
const NpuSection& npu_section(const std::vector<NpuSection>& sections, NpuSection::Id id);

// A layer's output groups of `lanes` neurons, and the weight rows they take: ceil(out / lanes) * in.
constexpr std::size_t npu_groups(std::size_t out, std::size_t lanes) { return (out + lanes - 1) / lanes; }
constexpr std::size_t npu_weight_rows(std::size_t in, std::size_t out, std::size_t lanes) {
  return npu_groups(out, lanes) * in;
}

// One layer descriptor, decoded.
struct NpuLayerInfo {
  std::size_t in = 0;
  std::size_t out = 0;
  std::size_t w_base = 0;       // first weight row
  std::size_t weight_rows = 0;  // npu_weight_rows(in, out, lanes)
  std::size_t row_base = 0;     // first bias / multiplier / shift entry
  std::int32_t input_zero_point = 0;
  std::int32_t weight_zero_point = 0;
  std::int32_t output_zero_point = 0;
  bool relu = false;

  [[nodiscard]] std::uint64_t macs() const { return std::uint64_t{in} * out; }

  bool operator==(const NpuLayerInfo&) const = default;
};

struct NpuImage {
  NpuTarget target;                  // the NPU it is laid out for
  std::vector<NpuSection> sections;  // in load order: sections[section_index(id)]
  std::vector<NpuLayerInfo> layers;
  std::uint32_t crc = 0;  // CRC-32 of npu_image_bytes()

  [[nodiscard]] const NpuSection& section(NpuSection::Id id) const { return npu_section(sections, id); }
  [[nodiscard]] std::size_t lanes() const { return target.limits.lanes; }
  [[nodiscard]] std::size_t input_size() const { return layers.empty() ? 0 : layers.front().in; }
  [[nodiscard]] std::size_t output_size() const { return layers.empty() ? 0 : layers.back().out; }
  [[nodiscard]] std::size_t total_words() const;
  [[nodiscard]] std::uint64_t macs() const;
  [[nodiscard]] std::string architecture() const;  // "784-128-10"
};

// "784-128-10" ("" for no layers) and the MACs of one inference, for a layer table (an
// image's or a manifest's).
std::string npu_architecture(const std::vector<NpuLayerInfo>& layers);
std::uint64_t npu_macs(const std::vector<NpuLayerInfo>& layers);

// The bytes the image CRC covers: every section's words, little-endian, in order.
std::vector<std::uint8_t> npu_image_bytes(const std::vector<NpuSection>& sections);

}  // namespace seatorch::npu
