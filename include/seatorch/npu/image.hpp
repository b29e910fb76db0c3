// The Mini NPU's model image (docs/NPU.md, "The model image"): the memory contents
// build_npu_image() makes from an Int8Model for one NPU target (target.hpp), that the .hex
// file stores and that NpuSession::load() sends over the UART. An image is five sections of
// 32-bit words at flat NPU addresses - header + layer descriptors, biases, multipliers,
// shifts, weights - and the CRC-32 of their bytes; and the clock cycles the target takes
// to run it (npu_inference_cycles).
// Deliberately not here: files (hex.hpp) and the wire protocol (frame.hpp, session.hpp).
#pragma once

#include "seatorch/npu/constants.hpp"
#include "seatorch/npu/target.hpp"
#include "seatorch/quant/int8_model.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::npu {

struct NpuSection {
  std::string name;                  // header, bias, multiplier, shift, weights
  std::uint32_t address = 0;         // flat word address of words[0]
  std::vector<std::uint32_t> words;
};

// One layer descriptor, decoded.
struct NpuLayerInfo {
  std::size_t in = 0;
  std::size_t out = 0;
  std::size_t w_base = 0;            // first weight row
  std::size_t weight_rows = 0;       // ceil(out / lanes) * in
  std::size_t row_base = 0;          // first bias / multiplier / shift entry
  std::int32_t input_zero_point = 0;
  std::int32_t weight_zero_point = 0;
  std::int32_t output_zero_point = 0;
  bool relu = false;

  [[nodiscard]] std::uint64_t macs() const { return std::uint64_t{in} * out; }

  bool operator==(const NpuLayerInfo&) const = default;
};

struct NpuImage {
  NpuTarget target;                  // the NPU it is laid out for
  std::vector<NpuSection> sections;  // in load order
  std::vector<NpuLayerInfo> layers;
  std::uint32_t crc = 0;             // CRC-32 of npu_image_bytes()

  [[nodiscard]] std::size_t lanes() const { return target.limits.lanes; }
  [[nodiscard]] std::size_t input_size() const { return layers.empty() ? 0 : layers.front().in; }
  [[nodiscard]] std::size_t output_size() const { return layers.empty() ? 0 : layers.back().out; }
  [[nodiscard]] std::size_t total_words() const;
  [[nodiscard]] std::uint64_t macs() const;
  [[nodiscard]] std::string architecture() const;  // "784-128-10"
};

// "784-128-10" and the MACs of one inference, for a layer table (an image's or a manifest's).
std::string npu_architecture(const std::vector<NpuLayerInfo>& layers);
std::uint64_t npu_macs(const std::vector<NpuLayerInfo>& layers);

// Lays out `model` for `target`. Throws InputError naming the limit and the target when the
// model does not fit its memories or uses something the NPU cannot do.
NpuImage build_npu_image(const quant::Int8Model& model, const NpuTarget& target = default_npu_target());

// The bytes the image CRC covers: every section's words, little-endian, in order.
std::vector<std::uint8_t> npu_image_bytes(const std::vector<NpuSection>& sections);

// An image from sections read elsewhere (a .hex file named by `source`): checks the CRC,
// the section layout, the header and every descriptor against `target`, and fills layers.
NpuImage npu_image_from_sections(std::vector<NpuSection> sections, std::uint32_t crc, std::string_view source,
                                 const NpuTarget& target = default_npu_target());

// The integer model an image encodes (everything inference uses; no float scales). Running
// int8_forward_ref on it is the reference for an image read back from a .hex file.
quant::Int8Model decode_npu_image(const NpuImage& image);

// The NPU's clock cycles for one layer and for one inference on the image's target, as
// counted by the NPU from the start of the first layer to the last logit (docs/NPU.md,
// "Timing"). With G = ceil(out / lanes) groups, c = out - (G - 1) * lanes outputs in the last
// one, and the requantizer's interval R and latency T (NpuTarget):
//   12 + in + (G - 1) * max(in, R * lanes, R * (lanes - 1) + 6) + R * (c - 1) + T
// that is 15 + in + (G - 1) * max(in, lanes + 5) + c for the pipelined requantizer (R = 1,
// T = 4) and 12 + in + (G - 1) * max(in, 68 * lanes) + 68 * c for the serial one (R = T = 68).
// The simulation tests check that the RTL takes exactly this many cycles.
std::uint64_t npu_layer_cycles(const NpuLayerInfo& layer, const NpuTarget& target);
std::uint64_t npu_inference_cycles(const NpuImage& image);

// The flat word address where region `region` starts.
constexpr std::uint32_t region_base(std::uint32_t region) { return region << kRegionLsb; }

}  // namespace seatorch::npu
