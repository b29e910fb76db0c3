// Int8Engine: per-layer preparation (packing, row constants) and the batched forward pass
// through the kernel's fused layer (gemm, zero-point correction and requantize in one).
#include "seatorch/quant/int8_engine.hpp"

#include "seatorch/core/argmax.hpp"
#include "seatorch/quant/int8_file.hpp"

#include <algorithm>
#include <cassert>

namespace seatorch::quant {
namespace {

// u (count) -> y = u - 128 (count).
void to_int8(const std::uint8_t* u, std::size_t count, std::int8_t* y) {
  for (std::size_t i = 0; i < count; ++i) y[i] = static_cast<std::int8_t>(u[i] - 128);
}

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
                               std::vector<std::vector<std::int8_t>>* layer_outputs, std::size_t first,
                               std::span<std::uint8_t> buffers[2]) const {
  const std::uint8_t* u = pixels;  // (n, in) of the current layer, biased to unsigned
  for (std::size_t k = 0; k < model_.layers.size(); ++k) {
    const Int8Layer& l = model_.layers[k];
    const PreparedLayer& p = layers_[k];
    std::uint8_t* next = buffers[k % 2].data();  // (n, out), the next layer's u
    kernel_->layer({n, l.out, l.in, u, l.in, p.packed_weight.data(), p.row_constant.data(), l.weight_zero_point,
                    l.multiplier.data(), l.shift.data(), l.output_zero_point, l.relu, next, l.out});
    // The int8 outputs y = u - 128 only where they are wanted: the trace and the logits.
    if (layer_outputs) to_int8(next, n * l.out, (*layer_outputs)[k].data() + first * l.out);
    if (k + 1 == model_.layers.size()) to_int8(next, n * l.out, logits);
    u = next;
  }
}

void Int8Engine::forward(std::span<const std::uint8_t> pixels, std::size_t n, std::span<std::int8_t> logits,
                         std::vector<std::vector<std::int8_t>>* layer_outputs) const {
  assert(pixels.size() == n * model_.inputs() && logits.size() == n * model_.outputs());
  if (layer_outputs) {
    layer_outputs->assign(model_.layers.size(), {});
    for (std::size_t k = 0; k < model_.layers.size(); ++k) (*layer_outputs)[k].resize(n * model_.layers[k].out);
  }
  std::size_t widest = 0;
  for (const Int8Layer& l : model_.layers) widest = std::max(widest, l.out);
  // Consecutive layers' u, (kChunk, widest) each, reused by every chunk and by every call on
  // this thread: no allocation, and no zeroing, per call (an evaluation calls once per batch).
  thread_local std::vector<std::uint8_t> storage;
  const std::size_t half = std::min(kChunk, n) * widest;
  if (storage.size() < 2 * half) storage.resize(2 * half);
  std::span<std::uint8_t> buffers[2] = {std::span(storage).first(half), std::span(storage).subspan(half, half)};
  for (std::size_t first = 0; first < n; first += kChunk) {
    const std::size_t count = std::min(kChunk, n - first);
    forward_chunk(pixels.data() + first * model_.inputs(), count, logits.data() + first * model_.outputs(),
                  layer_outputs, first, buffers);
  }
}

std::vector<std::int32_t> Int8Engine::predict(std::span<const std::uint8_t> pixels, std::size_t n) const {
  std::vector<std::int8_t> logits(n * model_.outputs());
  forward(pixels, n, logits);
  std::vector<std::int32_t> classes(n);
  for (std::size_t s = 0; s < n; ++s) {
    classes[s] = static_cast<std::int32_t>(
        core::argmax(std::span<const std::int8_t>(logits).subspan(s * model_.outputs(), model_.outputs())));
  }
  return classes;
}

}  // namespace seatorch::quant
