// Fast integer inference: an Int8Model prepared for one int8 gemm kernel
// (kernels/int8_kernels.hpp), computing exactly what int8_forward_ref computes, for a batch.
//
// For layer inputs x (int8) the kernel multiplies u = x + 128 (unsigned; for the first layer
// u is the pixel itself) by the raw weights w. The zero-points are folded in exactly:
//   acc_j = bias_j + sum_i (x_i - z_x)(w_ji - z_w)
//         = c_j + sum_i u_i w_ji - z_w * sum_i x_i,
//   c_j   = bias_j - (128 + z_x) * sum_i w_ji + in * z_x * z_w        (precomputed per row)
// and acc_j goes through the kernel's requantize, which equals kernels::requantize() bit for
// bit; the kernel's `layer` does all of it per chunk of images, computing sum_i x_i itself. The identity is exact in integers, and validate_int8_model() guarantees that acc_j
// fits int32 (|z_w * sum x| <= 128 * 128 * in fits too).
// Deliberately not here: choosing the numbers (quant/quantizer.hpp) and threads.
#pragma once

#include "seatorch/kernels/int8_kernels.hpp"
#include "seatorch/quant/int8_model.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace seatorch::quant {

class Int8Engine {
 public:
  // Images per pass through all layers: big enough to reuse each weight many times, small
  // enough that the activations stay in L2, and a multiple of every kernel's tile_images (16
  // for amx, 6 for avx512vnni, 4 for avx2; the engine's test checks it), so that no chunk but
  // the last ends in a shorter tile. 96 is also three of the AMX kernel's pairs of tiles; it
  // ran faster than 72 on both the AMX and the VNNI kernel (DECISIONS 102).
  static constexpr std::size_t kChunk = 96;

  // Validates the model; `kernel` as kernels::int8_kernel() ("auto": the fastest here).
  explicit Int8Engine(Int8Model model, std::string_view kernel = "auto");

  [[nodiscard]] std::string_view kernel() const { return kernel_->name; }
  [[nodiscard]] const Int8Model& model() const { return model_; }

  // pixels (n, inputs) -> logits (n, outputs). When `layer_outputs` is given it receives
  // every layer's int8 outputs, (n, layers[k].out) each.
  void forward(std::span<const std::uint8_t> pixels, std::size_t n, std::span<std::int8_t> logits,
               std::vector<std::vector<std::int8_t>>* layer_outputs = nullptr) const;

  // The predicted class of each image (core::argmax of its logits).
  [[nodiscard]] std::vector<std::int32_t> predict(std::span<const std::uint8_t> pixels, std::size_t n) const;

 private:
  struct PreparedLayer {
    std::vector<std::int8_t> packed_weight;  // kernel->pack_b of (out, in)
    std::vector<std::int32_t> row_constant;  // (out): c_j above
  };

  // One chunk of images through every layer; `buffers` hold consecutive layers' inputs.
  void forward_chunk(const std::uint8_t* pixels, std::size_t n, std::int8_t* logits,
                     std::vector<std::vector<std::int8_t>>* layer_outputs, std::size_t first,
                     std::span<std::uint8_t> buffers[2]) const;

  Int8Model model_;
  const kernels::Int8Kernel* kernel_;
  std::vector<PreparedLayer> layers_;
};

}  // namespace seatorch::quant
