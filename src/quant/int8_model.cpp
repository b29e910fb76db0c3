// The integer reference inference: the specification, written for clarity.
#include "seatorch/quant/int8_model.hpp"

#include "seatorch/kernels/fixed_point.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cassert>

namespace seatorch::quant {

std::string Int8Model::architecture() const {
  std::vector<std::size_t> sizes{inputs()};
  for (const Int8Layer& layer : layers) sizes.push_back(layer.out);
  return fmt::format("{}", fmt::join(sizes, "-"));
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

std::size_t argmax_int8(std::span<const std::int8_t> logits) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < logits.size(); ++i) {
    if (logits[i] > logits[best]) best = i;
  }
  return best;
}

}  // namespace seatorch::quant
