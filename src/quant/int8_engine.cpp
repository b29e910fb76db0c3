// Int8Engine: per-layer preparation (packing, row constants) and the batched forward pass
// with the exact zero-point folding and the reference requantize().
#include "seatorch/quant/int8_engine.hpp"

#include "seatorch/quant/int8_file.hpp"

#include <algorithm>
#include <cassert>

namespace seatorch::quant {
namespace {

// Images per pass through all layers: big enough to reuse each weight many times, small
// enough that the activations stay in L2.
constexpr std::size_t kChunk = 64;

}  // namespace

Int8Engine::Int8Engine(Int8Model model, std::string_view kernel)
    : model_(std::move(model)), kernel_(&kernels::int8_kernel(kernel)) {
  validate_int8_model(model_, "the int8 model");
  for (const Int8Layer& l : model_.layers) {
    PreparedLayer p;
    p.packed_weight = kernel_->pack_b(l.weight, l.out, l.in);
    for (std::size_t j = 0; j < l.out; ++j) {
      std::int64_t sum_w = 0;
      for (std::size_t i = 0; i < l.in; ++i) sum_w += l.weight[j * l.in + i];
      const std::int64_t c = l.bias[j] - (128 + std::int64_t{l.input_zero_point}) * sum_w +
                             static_cast<std::int64_t>(l.in) * l.input_zero_point * l.weight_zero_point;
      p.row_constant.push_back(static_cast<std::int32_t>(c));  // the accumulator for x = -128 everywhere: fits
    }
    layers_.push_back(std::move(p));
  }
}

void Int8Engine::forward_chunk(const std::uint8_t* pixels, std::size_t n, std::int8_t* logits,
                               std::vector<std::vector<std::int8_t>>* layer_outputs, std::size_t first) const {
  const std::uint8_t* u = pixels;  // (n, in) of the current layer, biased to unsigned
  std::vector<std::uint8_t> buffers[2];
  std::vector<std::int32_t> dots;
  std::vector<std::int8_t> scratch;
  for (std::size_t k = 0; k < model_.layers.size(); ++k) {
    const Int8Layer& l = model_.layers[k];
    const PreparedLayer& p = layers_[k];
    dots.resize(n * l.out);  // (n, out)
    kernel_->gemm({n, l.out, l.in, u, l.in, p.packed_weight.data(), dots.data(), l.out});
    std::vector<std::uint8_t>& next = buffers[k % 2];  // (n, out), the next layer's u
    next.resize(n * l.out);
    const bool last = k + 1 == model_.layers.size();
    // The int8 outputs go where they are wanted: the trace, the logits, or scratch.
    std::int8_t* y = layer_outputs ? (*layer_outputs)[k].data() + first * l.out : last ? logits : nullptr;
    if (!y) {
      scratch.resize(n * l.out);
      y = scratch.data();
    }
    for (std::size_t s = 0; s < n; ++s) {
      std::int64_t sum_x = 0;  // sum_i x_i, needed only when z_w != 0
      if (l.weight_zero_point != 0) {
        for (std::size_t i = 0; i < l.in; ++i) sum_x += u[s * l.in + i];
        sum_x -= 128 * static_cast<std::int64_t>(l.in);
      }
      kernel_->requantize({l.out, dots.data() + s * l.out, p.row_constant.data(),
                           static_cast<std::int32_t>(l.weight_zero_point * sum_x), l.multiplier.data(), l.shift.data(),
                           l.output_zero_point, l.relu, y + s * l.out, next.data() + s * l.out});
    }
    if (last && layer_outputs) std::copy(y, y + n * l.out, logits);
    u = next.data();
  }
}

void Int8Engine::forward(std::span<const std::uint8_t> pixels, std::size_t n, std::span<std::int8_t> logits,
                         std::vector<std::vector<std::int8_t>>* layer_outputs) const {
  assert(pixels.size() == n * model_.inputs() && logits.size() == n * model_.outputs());
  if (layer_outputs) {
    layer_outputs->assign(model_.layers.size(), {});
    for (std::size_t k = 0; k < model_.layers.size(); ++k) (*layer_outputs)[k].resize(n * model_.layers[k].out);
  }
  for (std::size_t first = 0; first < n; first += kChunk) {
    const std::size_t count = std::min(kChunk, n - first);
    forward_chunk(pixels.data() + first * model_.inputs(), count, logits.data() + first * model_.outputs(),
                  layer_outputs, first);
  }
}

std::vector<std::int32_t> Int8Engine::predict(std::span<const std::uint8_t> pixels, std::size_t n) const {
  std::vector<std::int8_t> logits(n * model_.outputs());
  forward(pixels, n, logits);
  std::vector<std::int32_t> classes(n);
  for (std::size_t s = 0; s < n; ++s) {
    classes[s] = static_cast<std::int32_t>(
        argmax_int8(std::span<const std::int8_t>(logits).subspan(s * model_.outputs(), model_.outputs())));
  }
  return classes;
}

}  // namespace seatorch::quant
