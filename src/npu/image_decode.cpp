// npu_image_from_sections() and decode_npu_image(): the image's words read back, the NPU's
// rules checked on the words, the int8 rules on the model they encode.
#include "seatorch/npu/image_decode.hpp"

#include "seatorch/core/crc32.hpp"
#include "seatorch/core/error.hpp"

#include <fmt/format.h>

#include <utility>

namespace seatorch::npu {
namespace {

using Id = NpuSection::Id;

std::int32_t i8_field(std::uint32_t word, int lsb) {
  return static_cast<std::int8_t>(static_cast<std::uint8_t>(word >> lsb));
}

// The weight of output j, input i of `d`, read back from the weights section.
std::int8_t weight_at(const std::vector<std::uint32_t>& weights, const NpuLayerInfo& d, std::size_t lanes,
                      std::size_t j, std::size_t i) {
  const std::size_t row = d.w_base + (j / lanes) * d.in + i;
  const std::size_t lane = j % lanes;
  const std::uint32_t word = weights[row * (lanes / 4) + lane / 4];
  return static_cast<std::int8_t>(static_cast<std::uint8_t>(word >> (8 * (lane % 4))));
}

// The sections in load order at their regions' addresses, named; then the CRC over them.
void check_sections(std::vector<NpuSection>& sections, std::uint32_t crc, std::string_view source) {
  if (sections.size() != kNpuSectionCount) {
    throw core::input_error("{}: {} data sections, an NPU image has {} (header, bias, multiplier, shift, weights)",
                            source, sections.size(), kNpuSectionCount);
  }
  for (const Id id : kNpuSectionIds) {
    NpuSection& s = sections[section_index(id)];
    if (s.address != npu_section_address(id)) {
      throw core::input_error("{}: section {} is at @{:06x}; the {} section must be section {} at @{:06x}", source,
                              section_index(id), s.address, npu_section_name(id), section_index(id),
                              npu_section_address(id));
    }
    s.name = npu_section_name(id);
  }
  const std::uint32_t actual = core::crc32(npu_image_bytes(sections));
  if (actual != crc) {
    throw core::input_error("{}: the data's CRC-32 is 0x{:08x} but the image says 0x{:08x}; the file is corrupted",
                            source, actual, crc);
  }
}

// The row and weight sections fit the target, and every shift word is a 5-bit shift.
void check_rows(const std::vector<NpuSection>& sections, std::string_view source, const NpuTarget& target) {
  const NpuLimits& limits = target.limits;
  const std::vector<std::uint32_t>& shifts = npu_section(sections, Id::kShift).words;
  const std::size_t rows = npu_section(sections, Id::kBias).words.size();
  const std::size_t multipliers = npu_section(sections, Id::kMultiplier).words.size();
  const std::size_t weight_words = npu_section(sections, Id::kWeights).words.size();
  if (multipliers != rows || shifts.size() != rows) {
    throw core::input_error("{}: the bias, multiplier and shift sections have {}, {} and {} words; they must be equal",
                            source, rows, multipliers, shifts.size());
  }
  const std::size_t banks = limits.lanes / 4;
  if (rows > limits.row_depth || weight_words > limits.wmem_depth * banks || weight_words % banks != 0) {
    throw core::input_error("{}: {} rows and {} weight words do not fit the {} target ({} rows, {} weight words)",
                            source, rows, weight_words, target.name, limits.row_depth, limits.wmem_depth * banks);
  }
  for (std::size_t r = 0; r < rows; ++r) {
    if (shifts[r] > 31) throw core::input_error("{}: shift entry {} is {}; shifts are 0 to 31", source, r, shifts[r]);
  }
}

// Decodes the header and descriptors, and checks each against the target and the sections:
// a descriptor may read only words the sections hold.
std::vector<NpuLayerInfo> parse_layers(const std::vector<NpuSection>& sections, std::string_view source,
                                       const NpuTarget& target) {
  const NpuLimits& limits = target.limits;
  const std::vector<std::uint32_t>& h = npu_section(sections, Id::kHeader).words;
  if (h.size() < kHeaderWords || h[0] != kImageMagic) {
    throw core::input_error("{}: the header section does not start with the magic 0x{:08x}; not an NPU image", source,
                            kImageMagic);
  }
  const std::uint32_t version = h[1] & 0xFFFFU;
  const std::size_t lanes = (h[1] >> 16) & 0xFFU;
  const std::size_t count = h[1] >> 24;
  if (version != kFormatVersion) {
    throw core::input_error("{}: image format version {}, this seatorch reads version {}; re-export the model", source,
                            version, kFormatVersion);
  }
  if (lanes != limits.lanes) {
    const std::string others = npu_targets_with_lanes(lanes);
    throw core::input_error("{}: the image was built for {} lanes, the {} target has {}{}; export the model again for "
                            "the {} target",
                            source, lanes, target.name, limits.lanes,
                            others.empty() ? "" : fmt::format(" (the {} target has {})", others, lanes), target.name);
  }
  if (count == 0 || count > limits.max_layers) {
    throw core::input_error("{}: {} layers; the {} target runs 1 to {}", source, count, target.name, limits.max_layers);
  }
  if (h.size() != kHeaderWords + kDescWords * count) {
    throw core::input_error("{}: the header section has {} words, {} layers need {}", source, h.size(), count,
                            kHeaderWords + kDescWords * count);
  }
  const std::size_t weight_rows = npu_section(sections, Id::kWeights).words.size() / (lanes / 4);
  const std::size_t rows = npu_section(sections, Id::kBias).words.size();
  std::vector<NpuLayerInfo> layers;
  for (std::size_t l = 0; l < count; ++l) {
    const std::uint32_t* d = &h[kHeaderWords + kDescWords * l];
    NpuLayerInfo info;
    info.in = d[0] & 0xFFFFU;
    info.out = d[0] >> 16;
    info.w_base = d[1];
    info.row_base = d[2];
    info.input_zero_point = i8_field(d[3], 0);
    info.weight_zero_point = i8_field(d[3], 8);
    info.output_zero_point = i8_field(d[3], 16);
    info.relu = ((d[3] >> 24) & 1U) != 0;
    info.weight_rows = npu_weight_rows(info.in, info.out, lanes);
    if (info.in == 0 || info.out == 0 || info.in > limits.act_depth || info.out > limits.act_depth) {
      throw core::input_error("{}: layer {} is {}x{}; the {} target's layers have 1 to {} inputs and outputs", source,
                              l, info.out, info.in, target.name, limits.act_depth);
    }
    if (info.w_base + info.weight_rows > weight_rows) {
      throw core::input_error("{}: layer {} reads weight rows {}..{} beyond the {} in the weights section", source, l,
                              info.w_base, info.w_base + info.weight_rows - 1, weight_rows);
    }
    if (info.row_base + info.out > rows) {
      throw core::input_error("{}: layer {} reads rows {}..{} beyond the {} in the bias section", source, l,
                              info.row_base, info.row_base + info.out - 1, rows);
    }
    layers.push_back(info);
  }
  if ((h[2] & 0xFFFFU) != layers.front().in || (h[2] >> 16) != layers.back().out) {
    throw core::input_error("{}: the header's input/output sizes {}/{} differ from the layers' {}/{}", source,
                            h[2] & 0xFFFFU, h[2] >> 16, layers.front().in, layers.back().out);
  }
  return layers;
}

}  // namespace

NpuImage npu_image_from_sections(std::vector<NpuSection> sections, std::uint32_t crc, std::string_view source,
                                 const NpuTarget& target) {
  check_sections(sections, crc, source);
  check_rows(sections, source, target);
  NpuImage image;
  image.target = target;
  image.layers = parse_layers(sections, source, target);
  image.sections = std::move(sections);
  image.crc = crc;
  // The layers chain, and no row's int32 accumulator can overflow: what the builder refuses.
  quant::validate_int8_inference(decode_npu_image(image), source);
  return image;
}

quant::Int8Model decode_npu_image(const NpuImage& image) {
  quant::Int8Model model;
  const std::vector<std::uint32_t>& weights = image.section(Id::kWeights).words;
  const std::vector<std::uint32_t>& bias = image.section(Id::kBias).words;
  const std::vector<std::uint32_t>& multiplier = image.section(Id::kMultiplier).words;
  const std::vector<std::uint32_t>& shift = image.section(Id::kShift).words;
  for (const NpuLayerInfo& d : image.layers) {
    quant::Int8Layer layer;
    layer.in = d.in;
    layer.out = d.out;
    layer.input_zero_point = d.input_zero_point;
    layer.weight_zero_point = d.weight_zero_point;
    layer.output_zero_point = d.output_zero_point;
    layer.relu = d.relu;
    layer.weight.resize(d.in * d.out);
    for (std::size_t j = 0; j < d.out; ++j) {
      for (std::size_t i = 0; i < d.in; ++i) layer.weight[j * d.in + i] = weight_at(weights, d, image.lanes(), j, i);
      layer.bias.push_back(static_cast<std::int32_t>(bias.at(d.row_base + j)));
      layer.multiplier.push_back(static_cast<std::int32_t>(multiplier.at(d.row_base + j)));
      layer.shift.push_back(static_cast<std::int32_t>(shift.at(d.row_base + j)));
    }
    model.layers.push_back(std::move(layer));
  }
  return model;
}

}  // namespace seatorch::npu
