// build_npu_image(): the int8 rules via quant, the target's limits, then the five sections.
#include "seatorch/npu/image_builder.hpp"

#include "seatorch/core/crc32.hpp"
#include "seatorch/core/error.hpp"

#include <utility>

namespace seatorch::npu {
namespace {

std::uint32_t u8_field(std::int32_t v) { return static_cast<std::uint32_t>(v) & 0xFFU; }

// The limits of `target` that the model's size must fit, before anything is laid out.
void check_target_fits(const quant::Int8Model& model, const NpuTarget& target) {
  const NpuLimits& limits = target.limits;
  if (limits.lanes < 4 || (limits.lanes & (limits.lanes - 1)) != 0) {
    throw core::input_error("the {} target's lane count must be a power of two >= 4, got {}", target.name,
                            limits.lanes);
  }
  if (model.layers.empty() || model.layers.size() > limits.max_layers) {
    throw core::input_error("the model has {} layers; the {} target runs 1 to {} (MaxLayers)", model.layers.size(),
                            target.name, limits.max_layers);
  }
  quant::validate_int8_inference(model, "the int8 model");
  for (std::size_t l = 0; l < model.layers.size(); ++l) {
    const quant::Int8Layer& layer = model.layers[l];
    if (layer.in > limits.act_depth || layer.out > limits.act_depth) {
      throw core::input_error("layer {} is {}x{}: the {} target's activation buffers hold 1 to {} values per layer "
                              "(ActDepth)",
                              l, layer.out, layer.in, target.name, limits.act_depth);
    }
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
  for (std::size_t g = 0; g < npu_groups(layer.out, lanes); ++g) {
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

}  // namespace

NpuImage build_npu_image(const quant::Int8Model& model, const NpuTarget& target) {
  check_target_fits(model, target);
  const NpuLimits& limits = target.limits;
  NpuImage image;
  image.target = target;
  std::vector<std::uint32_t> bias, mult, shift, weights;
  std::size_t w_rows = 0;
  for (const quant::Int8Layer& layer : model.layers) {
    NpuLayerInfo info;
    info.in = layer.in;
    info.out = layer.out;
    info.w_base = w_rows;
    info.weight_rows = npu_weight_rows(layer.in, layer.out, limits.lanes);
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
    throw core::input_error("{} has {} neurons but the {} target's bias/multiplier/shift memories hold {} (RowDepth); "
                            "use fewer or narrower layers",
                            model.architecture(), bias.size(), target.name, limits.row_depth);
  }
  // In load order, so that sections[section_index(id)] is section `id`.
  const auto add = [&](NpuSection::Id id, std::vector<std::uint32_t> words) {
    image.sections.push_back({std::string(npu_section_name(id)), npu_section_address(id), std::move(words)});
  };
  add(NpuSection::Id::kHeader, header_section(model, image.layers, limits.lanes));
  add(NpuSection::Id::kBias, std::move(bias));
  add(NpuSection::Id::kMultiplier, std::move(mult));
  add(NpuSection::Id::kShift, std::move(shift));
  add(NpuSection::Id::kWeights, std::move(weights));
  image.crc = core::crc32(npu_image_bytes(image.sections));
  return image;
}

}  // namespace seatorch::npu
