// build_npu_image() and its inverse: the layout of docs/NPU.md, "The model image" and
// "Layer descriptors", written once in each direction.
#include "seatorch/npu/image.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/npu/crc32.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>


namespace seatorch::npu {
namespace {

constexpr std::size_t kSectionCount = 5;
constexpr const char* kSectionNames[kSectionCount] = {"header", "bias", "multiplier", "shift", "weights"};
constexpr std::uint32_t kSectionRegions[kSectionCount] = {kRegionDmem, kRegionBias, kRegionMult,
                                                          kRegionShift, kRegionWmem};

std::size_t groups(std::size_t out, std::size_t lanes) { return (out + lanes - 1) / lanes; }

std::uint32_t u8_field(std::int32_t v) { return static_cast<std::uint32_t>(v) & 0xFFU; }
std::int32_t i8_field(std::uint32_t word, int lsb) {
  return static_cast<std::int8_t>(static_cast<std::uint8_t>(word >> lsb));
}

void check_zero_point(std::int32_t z, std::size_t layer, const char* which) {
  if (z < -128 || z > 127) {
    throw core::input_error("layer {}: {} zero-point {} is outside [-128, 127]; the NPU stores zero-points as int8",
                      layer, which, z);
  }
}

// Checks that output `row` of layer `l` cannot overflow int8_layer_ref's int32 accumulator
// bias + sum_i (x_i - z_x)(w(i) - z_w) for any input x_i in [-128, 127]. The NPU's 32-bit
// accumulator would wrap; the reference it is checked against must stay defined. Each
// product lies between its values at x_i = -128 and 127, one >= 0 and one <= 0, so the
// partial sums' extremes are the full sums'. (An int8 model file's bias bound implies this.)
template <typename Weight>
void check_accumulator(std::string_view prefix, std::size_t l, std::size_t row, std::size_t in, std::int32_t bias,
                       std::int32_t z_x, std::int32_t z_w, Weight w) {
  std::int64_t lo = bias;
  std::int64_t hi = bias;
  for (std::size_t i = 0; i < in; ++i) {
    const std::int64_t d = std::int64_t{w(i)} - z_w;
    lo += std::min((127 - z_x) * d, (-128 - z_x) * d);
    hi += std::max((127 - z_x) * d, (-128 - z_x) * d);
  }
  if (lo < std::numeric_limits<std::int32_t>::min() || hi > std::numeric_limits<std::int32_t>::max()) {
    throw core::input_error("{}layer {} row {}: bias {} with these weights can make the int32 accumulator reach [{}, {}], "
                      "beyond int32; re-quantize the model",
                      prefix, l, row, bias, lo, hi);
  }
}

// Checks one layer of an Int8Model against the target's limits.
void check_layer(const quant::Int8Layer& layer, std::size_t l, std::size_t prev_out, const NpuTarget& target) {
  const NpuLimits& limits = target.limits;
  if (layer.in == 0 || layer.out == 0 || layer.in > limits.act_depth || layer.out > limits.act_depth) {
    throw core::input_error("layer {} is {}x{}: the {} target's activation buffers hold 1 to {} values per layer "
                      "(ActDepth)",
                      l, layer.out, layer.in, target.name, limits.act_depth);
  }
  if (l > 0 && layer.in != prev_out) {
    throw core::input_error("layer {} has {} inputs but layer {} has {} outputs; the layers must chain", l, layer.in,
                      l - 1, prev_out);
  }
  if (layer.weight.size() != layer.in * layer.out || layer.bias.size() != layer.out ||
      layer.multiplier.size() != layer.out || layer.shift.size() != layer.out) {
    throw core::input_error("layer {}: expected {} weights and {} biases, multipliers and shifts, got {}, {}, {}, {}", l,
                      layer.in * layer.out, layer.out, layer.weight.size(), layer.bias.size(),
                      layer.multiplier.size(), layer.shift.size());
  }
  for (std::size_t j = 0; j < layer.out; ++j) {
    if (layer.shift[j] < 0 || layer.shift[j] > 31) {
      throw core::input_error("layer {} row {}: requantization shift {} is outside [0, 31], the NPU's 5-bit shift",
                        l, j, layer.shift[j]);
    }
  }
  check_zero_point(layer.input_zero_point, l, "input");
  check_zero_point(layer.weight_zero_point, l, "weight");
  check_zero_point(layer.output_zero_point, l, "output");
  for (std::size_t j = 0; j < layer.out; ++j) {
    check_accumulator("", l, j, layer.in, layer.bias[j], layer.input_zero_point, layer.weight_zero_point,
                      [&](std::size_t i) { return layer.weight[j * layer.in + i]; });
  }
}

std::vector<std::uint32_t> header_section(const quant::Int8Model& model, const std::vector<NpuLayerInfo>& layers,
                                          std::size_t lanes) {
  std::vector<std::uint32_t> w;
  w.push_back(kImageMagic);
  w.push_back(kFormatVersion | static_cast<std::uint32_t>(lanes) << 16 |
              static_cast<std::uint32_t>(layers.size()) << 24);
  w.push_back(static_cast<std::uint32_t>(model.inputs()) | static_cast<std::uint32_t>(model.outputs()) << 16);
  w.push_back(0);
  for (const NpuLayerInfo& d : layers) {
    w.push_back(static_cast<std::uint32_t>(d.in) | static_cast<std::uint32_t>(d.out) << 16);
    w.push_back(static_cast<std::uint32_t>(d.w_base));
    w.push_back(static_cast<std::uint32_t>(d.row_base));
    w.push_back(u8_field(d.input_zero_point) | u8_field(d.weight_zero_point) << 8 |
                u8_field(d.output_zero_point) << 16 | (d.relu ? 1U : 0U) << 24);
  }
  return w;
}

// Weight row r = w_base + g*in + i holds w[g*lanes + k][i] in lane k; 4 lanes per word.
void append_weights(const quant::Int8Layer& layer, std::size_t lanes, std::vector<std::uint32_t>& words) {
  const std::size_t banks = lanes / 4;
  for (std::size_t g = 0; g < groups(layer.out, lanes); ++g) {
    for (std::size_t i = 0; i < layer.in; ++i) {
      for (std::size_t b = 0; b < banks; ++b) {
        std::uint32_t word = 0;
        for (std::size_t lane = 4 * b; lane < 4 * b + 4; ++lane) {
          const std::size_t j = g * lanes + lane;
          const std::uint8_t w = j < layer.out ? static_cast<std::uint8_t>(layer.weight[j * layer.in + i]) : 0;
          word |= std::uint32_t{w} << (8 * (lane - 4 * b));
        }
        words.push_back(word);
      }
    }
  }
}

// The weight of output j, input i of `d`, read back from the weights section.
std::int8_t weight_at(const std::vector<std::uint32_t>& weights, const NpuLayerInfo& d, std::size_t lanes,
                      std::size_t j, std::size_t i) {
  const std::size_t row = d.w_base + (j / lanes) * d.in + i;
  const std::size_t lane = j % lanes;
  const std::uint32_t word = weights[row * (lanes / 4) + lane / 4];
  return static_cast<std::int8_t>(static_cast<std::uint8_t>(word >> (8 * (lane % 4))));
}

// Decodes and checks the header and descriptors of `sections` (already in region order).
std::vector<NpuLayerInfo> parse_layers(const std::vector<NpuSection>& sections, std::string_view source,
                                       const NpuTarget& target) {
  const NpuLimits& limits = target.limits;
  const std::vector<std::uint32_t>& h = sections[0].words;
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
    throw core::input_error("{}: the image was built for {} lanes, the {} target has {}{}; export the model again for the "
                      "{} target",
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
    info.weight_rows = groups(info.out, lanes) * info.in;
    if (info.in == 0 || info.out == 0 || info.in > limits.act_depth || info.out > limits.act_depth) {
      throw core::input_error("{}: layer {} is {}x{}; the {} target's layers have 1 to {} inputs and outputs", source, l,
                        info.out, info.in, target.name, limits.act_depth);
    }
    if (l > 0 && info.in != layers.back().out) {
      throw core::input_error("{}: layer {} has {} inputs but layer {} has {} outputs", source, l, info.in, l - 1,
                        layers.back().out);
    }
    if (info.w_base + info.weight_rows > sections[4].words.size() / (lanes / 4)) {
      throw core::input_error("{}: layer {} reads weight rows {}..{} beyond the {} in the weights section", source, l,
                        info.w_base, info.w_base + info.weight_rows - 1, sections[4].words.size() / (lanes / 4));
    }
    if (info.row_base + info.out > sections[1].words.size()) {
      throw core::input_error("{}: layer {} reads rows {}..{} beyond the {} in the bias section", source, l,
                        info.row_base, info.row_base + info.out - 1, sections[1].words.size());
    }
    for (std::size_t j = 0; j < info.out; ++j) {
      check_accumulator(fmt::format("{}: ", source), l, j, info.in,
                        static_cast<std::int32_t>(sections[1].words[info.row_base + j]), info.input_zero_point,
                        info.weight_zero_point,
                        [&](std::size_t i) { return weight_at(sections[4].words, info, lanes, j, i); });
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

std::size_t NpuImage::total_words() const {
  std::size_t n = 0;
  for (const NpuSection& s : sections) n += s.words.size();
  return n;
}

std::uint64_t NpuImage::macs() const { return npu_macs(layers); }

std::string NpuImage::architecture() const { return npu_architecture(layers); }

std::uint64_t npu_macs(const std::vector<NpuLayerInfo>& layers) {
  std::uint64_t n = 0;
  for (const NpuLayerInfo& l : layers) n += l.macs();
  return n;
}

std::string npu_architecture(const std::vector<NpuLayerInfo>& layers) {
  if (layers.empty()) return "";
  std::string s = fmt::format("{}", layers.front().in);
  for (const NpuLayerInfo& l : layers) s += fmt::format("-{}", l.out);
  return s;
}

std::uint64_t npu_layer_cycles(const NpuLayerInfo& layer, const NpuTarget& target) {
  // Derived from npu_sequencer.sv, cycle by cycle (docs/NPU.md, "Timing"):
  // the descriptor fetch: 4 DMEM reads and the cycle that takes the last word.
  constexpr std::uint64_t kFetch = 5;
  // From the issue of a group's last input to its first output leaving the shadow bank: the
  // memory read, the MAC array's 3 register stages, the shadow bank's load.
  constexpr std::uint64_t kIssueToFeed = 1 + 3 + 1;
  // After the last output leaves the shadow bank: the feeder's register before the
  // requantizer, the requantizer, and the cycle in which the sequencer sees it idle.
  constexpr std::uint64_t kFeedRegister = 1;
  constexpr std::uint64_t kDrainCheck = 1;
  const std::uint64_t lanes = target.limits.lanes;
  const std::uint64_t interval = target.requant_interval();
  const std::uint64_t g = groups(layer.out, lanes);
  const std::uint64_t last_group_outputs = layer.out - (g - 1) * lanes;
  // Cycles from one group's last input to the next one's. The next group's last input waits
  // until this group's last output has left the shadow bank (the feeder's `pending_q`); and
  // the next group's outputs enter the requantizer no sooner than `lanes` intervals after this
  // group's first did. With the pipelined requantizer the first bound is lanes + 5, with the
  // serial one the second (68 * lanes), and the MAC array runs at full speed when in is larger.
  const std::uint64_t period =
      std::max({std::uint64_t{layer.in}, interval * lanes, kIssueToFeed + interval * (lanes - 1) + 1});
  return kFetch + layer.in + (g - 1) * period + kIssueToFeed + interval * (last_group_outputs - 1) + kFeedRegister +
         target.requant_latency() + kDrainCheck;
}

std::uint64_t npu_inference_cycles(const NpuImage& image) {
  std::uint64_t cycles = 0;
  for (const NpuLayerInfo& l : image.layers) cycles += npu_layer_cycles(l, image.target);
  return cycles;
}

NpuImage build_npu_image(const quant::Int8Model& model, const NpuTarget& target) {
  const NpuLimits& limits = target.limits;
  if (limits.lanes < 4 || (limits.lanes & (limits.lanes - 1)) != 0) {
    throw core::input_error("the {} target's lane count must be a power of two >= 4, got {}", target.name, limits.lanes);
  }
  if (model.layers.empty() || model.layers.size() > limits.max_layers) {
    throw core::input_error("the model has {} layers; the {} target runs 1 to {} (MaxLayers)", model.layers.size(),
                      target.name, limits.max_layers);
  }
  NpuImage image;
  image.target = target;
  std::vector<std::uint32_t> bias, mult, shift, weights;
  std::size_t w_rows = 0;
  for (std::size_t l = 0; l < model.layers.size(); ++l) {
    const quant::Int8Layer& layer = model.layers[l];
    check_layer(layer, l, l > 0 ? model.layers[l - 1].out : 0, target);
    NpuLayerInfo info;
    info.in = layer.in;
    info.out = layer.out;
    info.w_base = w_rows;
    info.weight_rows = groups(layer.out, limits.lanes) * layer.in;
    info.row_base = bias.size();
    info.input_zero_point = layer.input_zero_point;
    info.weight_zero_point = layer.weight_zero_point;
    info.output_zero_point = layer.output_zero_point;
    info.relu = layer.relu;
    w_rows += info.weight_rows;
    for (std::size_t j = 0; j < layer.out; ++j) {
      bias.push_back(static_cast<std::uint32_t>(layer.bias[j]));
      mult.push_back(static_cast<std::uint32_t>(layer.multiplier[j]));
      shift.push_back(static_cast<std::uint32_t>(layer.shift[j]));
    }
    append_weights(layer, limits.lanes, weights);
    image.layers.push_back(info);
  }
  if (w_rows > limits.wmem_depth) {
    throw core::input_error("{} needs {} weight rows of {} lanes but the {} target's weight memory has {} (WmemDepth); "
                      "use fewer or narrower hidden layers",
                      model.architecture(), w_rows, limits.lanes, target.name, limits.wmem_depth);
  }
  if (bias.size() > limits.row_depth) {
    throw core::input_error("{} has {} neurons but the {} target's bias/multiplier/shift memories hold {} (RowDepth); use "
                      "fewer or narrower layers",
                      model.architecture(), bias.size(), target.name, limits.row_depth);
  }
  std::vector<std::uint32_t>* contents[kSectionCount] = {nullptr, &bias, &mult, &shift, &weights};
  std::vector<std::uint32_t> header = header_section(model, image.layers, limits.lanes);
  contents[0] = &header;
  for (std::size_t s = 0; s < kSectionCount; ++s) {
    image.sections.push_back({kSectionNames[s], region_base(kSectionRegions[s]), std::move(*contents[s])});
  }
  image.crc = crc32(npu_image_bytes(image.sections));
  return image;
}

std::vector<std::uint8_t> npu_image_bytes(const std::vector<NpuSection>& sections) {
  std::vector<std::uint8_t> bytes;
  for (const NpuSection& s : sections) {
    for (const std::uint32_t w : s.words) {
      for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<std::uint8_t>(w >> (8 * b)));
    }
  }
  return bytes;
}

NpuImage npu_image_from_sections(std::vector<NpuSection> sections, std::uint32_t crc, std::string_view source,
                                 const NpuTarget& target) {
  const NpuLimits& limits = target.limits;
  if (sections.size() != kSectionCount) {
    throw core::input_error("{}: {} data sections, an NPU image has {} (header, bias, multiplier, shift, weights)", source,
                      sections.size(), kSectionCount);
  }
  for (std::size_t s = 0; s < kSectionCount; ++s) {
    if (sections[s].address != region_base(kSectionRegions[s])) {
      throw core::input_error("{}: section {} is at @{:06x}; the {} section must be section {} at @{:06x}", source, s,
                        sections[s].address, kSectionNames[s], s, region_base(kSectionRegions[s]));
    }
    sections[s].name = kSectionNames[s];
  }
  const std::uint32_t actual = crc32(npu_image_bytes(sections));
  if (actual != crc) {
    throw core::input_error("{}: the data's CRC-32 is 0x{:08x} but the image says 0x{:08x}; the file is corrupted", source,
                      actual, crc);
  }
  const std::size_t rows = sections[1].words.size();
  if (sections[2].words.size() != rows || sections[3].words.size() != rows) {
    throw core::input_error("{}: the bias, multiplier and shift sections have {}, {} and {} words; they must be equal",
                      source, rows, sections[2].words.size(), sections[3].words.size());
  }
  if (rows > limits.row_depth || sections[4].words.size() > limits.wmem_depth * (limits.lanes / 4) ||
      sections[4].words.size() % (limits.lanes / 4) != 0) {
    throw core::input_error("{}: {} rows and {} weight words do not fit the {} target ({} rows, {} weight words)", source,
                      rows, sections[4].words.size(), target.name, limits.row_depth,
                      limits.wmem_depth * (limits.lanes / 4));
  }
  for (std::size_t r = 0; r < rows; ++r) {
    if (sections[3].words[r] > 31) {
      throw core::input_error("{}: shift entry {} is {}; shifts are 0 to 31", source, r, sections[3].words[r]);
    }
  }
  NpuImage image;
  image.target = target;
  image.layers = parse_layers(sections, source, target);
  image.sections = std::move(sections);
  image.crc = crc;
  return image;
}

quant::Int8Model decode_npu_image(const NpuImage& image) {
  quant::Int8Model model;
  const std::vector<std::uint32_t>& weights = image.sections.at(4).words;
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
      layer.bias.push_back(static_cast<std::int32_t>(image.sections.at(1).words.at(d.row_base + j)));
      layer.multiplier.push_back(static_cast<std::int32_t>(image.sections.at(2).words.at(d.row_base + j)));
      layer.shift.push_back(static_cast<std::int32_t>(image.sections.at(3).words.at(d.row_base + j)));
    }
    model.layers.push_back(std::move(layer));
  }
  return model;
}

}  // namespace seatorch::npu
