// The quantized MLP and its integer-only reference inference: the golden model that the
// SIMD int8 paths and the Mini NPU must match bit for bit (docs/QUANTIZATION.md).
//
// Activations are int8 everywhere. Input pixels are bytes p in [0, 255]; the first layer
// sees q = p - 128, i.e. scale 1/255 and zero-point -128, so (q - z) = p exactly. Each layer
// computes, for output j,
//   acc_j = bias_j + sum_i (x_i - z_x) * (w_ji - z_w)          (exact, in int32)
//   y_j   = requantize(acc_j, multiplier_j, shift_j, z_y, relu)  (fixed_point.hpp)
// Per-tensor quantization has one (multiplier, shift) for all rows; per-channel has one
// per row and z_w = 0. Both are stored per row so one code path serves both.
// Deliberately not here: how the numbers were chosen (that is the quantizer's job) and
// any fast path (those live in kernels and are tested against int8_forward_ref).
#pragma once


#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::quant {

struct Int8Layer {
  std::size_t in = 0;
  std::size_t out = 0;
  std::vector<std::int8_t> weight;       // (out, in) row-major
  std::vector<std::int32_t> bias;        // (out), at scale s_x * s_w[j]
  std::vector<std::int32_t> multiplier;  // (out), each in [2^30, 2^31)
  std::vector<std::int32_t> shift;       // (out), each in [0, 31]
  std::int32_t input_zero_point = 0;     // z_x, in [-128, 127]
  std::int32_t weight_zero_point = 0;    // z_w, in [-128, 127]; 0 when per-channel
  std::int32_t output_zero_point = 0;    // z_y, in [-128, 127]
  bool relu = false;

  // Float scales, kept for reports and dequantization; never used by inference.
  double input_scale = 0.0;
  std::vector<double> weight_scale;  // (1) per-tensor or (out) per-channel
  double output_scale = 0.0;
};

struct Int8Model {
  std::vector<Int8Layer> layers;

  [[nodiscard]] std::size_t inputs() const { return layers.empty() ? 0 : layers.front().in; }
  [[nodiscard]] std::size_t outputs() const { return layers.empty() ? 0 : layers.back().out; }
  // "784-256-128-10"
  [[nodiscard]] std::string architecture() const;
};

// Per-layer intermediate values of one inference, for --dump-layers and NPU debugging.
struct Int8LayerTrace {
  std::vector<std::int32_t> accumulators;  // (out)
  std::vector<std::int8_t> outputs;        // (out)
};

// The input layer's view of a byte pixel: p - 128.
constexpr std::int8_t pixel_to_int8(std::uint8_t p) { return static_cast<std::int8_t>(p - 128); }

// One layer, integer only: x (in) -> y (out); optionally also returns the accumulators.
void int8_layer_ref(const Int8Layer& layer, std::span<const std::int8_t> x, std::span<std::int8_t> y,
                    std::span<std::int32_t> accumulators = {});

// The whole model on one image of bytes; returns the final layer's int8 logits (outputs()).
// When `trace` is given it receives every layer's accumulators and outputs.
std::vector<std::int8_t> int8_forward_ref(const Int8Model& model, std::span<const std::uint8_t> pixels,
                                          std::vector<Int8LayerTrace>* trace = nullptr);


// ---- validity --------------------------------------------------------------------------
// Two levels, both throwing InputError that names `source` and the layer, row and field:
//
// validate_int8_inference: what int8_layer_ref needs to be defined on every input, and no
// more: at least one layer; non-empty shapes that chain; weight, bias, multiplier and shift
// arrays of the layer's sizes; zero-points in [-128, 127]; shifts in [0, 31]; and for every
// row, no int8 input can take the int32 accumulator bias + sum_i (x_i - z_x)(w_ji - z_w)
// beyond int32 (checked exactly, with the row's weights). Any multiplier is allowed. The
// Mini NPU's builder and reader check this (npu/image_builder.hpp, npu/image_decode.hpp),
// then their own limits.
//
// validate_int8_model: what a quantized model promises on top, so that every kernel and
// the int8 file can rely on it: the above but for the accumulator rule, which becomes the
// bias bound |bias_j| <= int8_bias_limit(in) (it implies the exact rule for any weights);
// multipliers in [2^30, 2^31); one weight scale or one per row; layer 0's input zero-point
// is -128 (the pixel encoding); each layer's input zero-point and scale are the previous
// layer's output ones. The quantizer checks its result with it, the int8 file reader what
// it read, Int8Engine what it runs.
void validate_int8_inference(const Int8Model& model, std::string_view source);
void validate_int8_model(const Int8Model& model, std::string_view source);

// The largest |bias| of a layer with `in` inputs that validate_int8_model accepts:
// INT32_MAX - in * 255^2 - 255. Each product |(x - z_x)(w - z_w)| is at most 255^2, so the
// accumulator fits int32 with 255 to spare, and then the kernels' int32 sums
// z_y + (srdhm(acc, M) >> shift), and that plus 128 (z_y + 128 <= 255), cannot overflow either.
std::int64_t int8_bias_limit(std::size_t in);

// "layers.k.field" (field[j] for row j): how messages and the int8 file name a layer's values.
std::string int8_field_name(std::size_t layer, std::string_view field);

}  // namespace seatorch::quant
