// The integer reference inference, written for clarity, and the rules that keep it defined.
#include "seatorch/quant/int8_model.hpp"

#include "seatorch/core/architecture.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/kernels/fixed_point.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <limits>

namespace seatorch::quant {
namespace {

constexpr std::int64_t kInt32Min = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

void check_range(std::string_view source, const std::string& what, std::int64_t value, std::int64_t lo,
                 std::int64_t hi) {
  if (value < lo || value > hi) throw core::input_error("{}: {} = {} is outside [{}, {}]", source, what, value, lo, hi);
}

// Both levels: layers that exist, have sizes, chain, and hold arrays of their sizes.
void check_shapes(const Int8Model& model, std::string_view source) {
  if (model.layers.empty()) throw core::input_error("{}: the int8 model has no layers", source);
  for (std::size_t k = 0; k < model.layers.size(); ++k) {
    const Int8Layer& l = model.layers[k];
    if (l.in == 0 || l.out == 0)
      throw core::input_error("{}: layer {} has an empty shape ({}, {})", source, k, l.out, l.in);
    if (k > 0 && l.in != model.layers[k - 1].out) {
      throw core::input_error("{}: layer {} has {} inputs but layer {} has {} outputs; the layers must chain", source,
                              k, l.in, k - 1, model.layers[k - 1].out);
    }
    if (l.weight.size() != l.in * l.out || l.bias.size() != l.out || l.multiplier.size() != l.out ||
        l.shift.size() != l.out) {
      throw core::input_error(
          "{}: layer {}: expected {} weights and {} biases, multipliers and shifts, got {}, {}, {}, {}", source, k,
          l.in * l.out, l.out, l.weight.size(), l.bias.size(), l.multiplier.size(), l.shift.size());
    }
  }
}

// Both levels: the zero-points are int8 and every shift is one requantize() takes.
void check_zero_points_and_shifts(const Int8Layer& l, std::size_t k, std::string_view source) {
  check_range(source, int8_field_name(k, "input_zero_point"), l.input_zero_point, -128, 127);
  check_range(source, int8_field_name(k, "weight_zero_point"), l.weight_zero_point, -128, 127);
  check_range(source, int8_field_name(k, "output_zero_point"), l.output_zero_point, -128, 127);
  for (std::size_t j = 0; j < l.out; ++j) {
    check_range(source, fmt::format("{}[{}]", int8_field_name(k, "shift"), j), l.shift[j], 0, 31);
  }
}

// The exact accumulator rule for row j of layer k: bias + sum_i (x_i - z_x)(w_ji - z_w) stays
// in int32 for every x_i in [-128, 127]. Each product lies between its values at x_i = -128
// and 127, one >= 0 and one <= 0, so the partial sums' extremes are the full sums'.
void check_accumulator(const Int8Layer& l, std::size_t k, std::size_t j, std::string_view source) {
  std::int64_t lo = l.bias[j];
  std::int64_t hi = l.bias[j];
  for (std::size_t i = 0; i < l.in; ++i) {
    const std::int64_t d = std::int64_t{l.weight[j * l.in + i]} - l.weight_zero_point;
    lo += std::min((127 - l.input_zero_point) * d, (-128 - l.input_zero_point) * d);
    hi += std::max((127 - l.input_zero_point) * d, (-128 - l.input_zero_point) * d);
  }
  if (lo < kInt32Min || hi > kInt32Max) {
    throw core::input_error(
        "{}: layer {} row {}: bias {} with these weights can make the int32 accumulator reach [{}, {}], "
        "beyond int32; re-quantize the model",
        source, k, j, l.bias[j], lo, hi);
  }
}

}  // namespace

std::string Int8Model::architecture() const {
  std::vector<std::size_t> sizes{inputs()};
  for (const Int8Layer& layer : layers) sizes.push_back(layer.out);
  return core::architecture_name(sizes);
}

std::string int8_field_name(std::size_t layer, std::string_view field) {
  return fmt::format("layers.{}.{}", layer, field);
}

std::int64_t int8_bias_limit(std::size_t in) { return kInt32Max - static_cast<std::int64_t>(in) * 255 * 255 - 255; }

void validate_int8_inference(const Int8Model& model, std::string_view source) {
  check_shapes(model, source);
  for (std::size_t k = 0; k < model.layers.size(); ++k) {
    const Int8Layer& l = model.layers[k];
    check_zero_points_and_shifts(l, k, source);
    for (std::size_t j = 0; j < l.out; ++j) check_accumulator(l, k, j, source);
  }
}

void validate_int8_model(const Int8Model& model, std::string_view source) {
  check_shapes(model, source);
  for (std::size_t k = 0; k < model.layers.size(); ++k) {
    const Int8Layer& l = model.layers[k];
    const auto what = [k](std::string_view field) { return int8_field_name(k, field); };
    if (l.weight_scale.size() != 1 && l.weight_scale.size() != l.out) {
      throw core::input_error("{}: layer {} has {} weight scales, expected 1 (per tensor) or {} (per channel)", source,
                              k, l.weight_scale.size(), l.out);
    }
    check_zero_points_and_shifts(l, k, source);
    const std::int64_t bias_limit = int8_bias_limit(l.in);
    for (std::size_t j = 0; j < l.out; ++j) {
      check_range(source, fmt::format("{}[{}]", what("multiplier"), j), l.multiplier[j], std::int64_t{1} << 30,
                  kInt32Max);
      check_range(source,
                  fmt::format("{}[{}] (with {} inputs the int32 accumulator could overflow)", what("bias"), j, l.in),
                  l.bias[j], -bias_limit, bias_limit);
    }
    if (k == 0 && l.input_zero_point != -128) {
      throw core::input_error("{}: {} = {}, but the first layer's input is pixel - 128 (zero-point -128)", source,
                              what("input_zero_point"), l.input_zero_point);
    }
    if (k > 0) {
      const Int8Layer& prev = model.layers[k - 1];
      if (prev.output_zero_point != l.input_zero_point || prev.output_scale != l.input_scale) {
        throw core::input_error("{}: layer {}'s input zero-point/scale ({}, {}) differ from layer {}'s output ({}, {})",
                                source, k, l.input_zero_point, l.input_scale, k - 1, prev.output_zero_point,
                                prev.output_scale);
      }
    }
  }
}

void int8_layer_ref(const Int8Layer& layer, std::span<const std::int8_t> x, std::span<std::int8_t> y,
                    std::span<std::int32_t> accumulators) {
  assert(x.size() == layer.in && y.size() == layer.out);
  for (std::size_t j = 0; j < layer.out; ++j) {
    std::int32_t acc = layer.bias[j];
    for (std::size_t i = 0; i < layer.in; ++i) {
      acc += (std::int32_t{x[i]} - layer.input_zero_point) *
             (std::int32_t{layer.weight[j * layer.in + i]} - layer.weight_zero_point);
    }
    if (!accumulators.empty()) accumulators[j] = acc;
    y[j] = kernels::requantize(acc, layer.multiplier[j], layer.shift[j], layer.output_zero_point, layer.relu);
  }
}

std::vector<std::int8_t> int8_forward_ref(const Int8Model& model, std::span<const std::uint8_t> pixels,
                                          std::vector<Int8LayerTrace>* trace) {
  assert(pixels.size() == model.inputs());
  std::vector<std::int8_t> x(pixels.size());
  for (std::size_t i = 0; i < pixels.size(); ++i) x[i] = pixel_to_int8(pixels[i]);
  if (trace) trace->clear();
  for (const Int8Layer& layer : model.layers) {
    std::vector<std::int8_t> y(layer.out);
    std::vector<std::int32_t> acc(trace ? layer.out : 0);
    int8_layer_ref(layer, x, y, acc);
    if (trace) trace->push_back({std::move(acc), y});
    x = std::move(y);
  }
  return x;
}

}  // namespace seatorch::quant
