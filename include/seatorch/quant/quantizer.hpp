// Post-training quantization of a FloatMlp into an Int8Model (docs/QUANTIZATION.md has the
// equations and a worked example). In short:
//   - weights: per-tensor asymmetric (scale, zero-point over [min(w,0), max(w,0)]) or
//     per-channel symmetric (scale max|w_j|/127 per output row, zero-point 0, [-127, 127]);
//   - activations: each layer's output range is calibrated on N images (minmax, a
//     percentile, or the clipping range that minimises the quantization MSE), always
//     widened to include 0 so that zero is exact; the input is the fixed pixel encoding;
//   - biases in int32 at scale s_x * s_w[j]; requantization multipliers M_j * 2^-31 * 2^-shift_j
//     from quantize_multiplier(s_x * s_w[j] / s_y); ReLU becomes the clamp at z_y.
// Every rounding here (std::round) is to nearest with ties away from zero; every scale is rounded to float32
// before anything is derived from it, so the int8 file stores the model exactly.
// Deliberately not here: the integer arithmetic (quant/int8_model.hpp, fixed_point.hpp),
// files (quant/int8_file.hpp) and quantization-aware training (quant/qat.hpp).
#pragma once

#include "seatorch/model/float_mlp.hpp"
#include "seatorch/quant/int8_model.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::quant {

enum class Granularity { kTensor, kChannel };
enum class CalibrationMethod { kMinMax, kPercentile, kMse };

// "tensor" | "channel" and "minmax" | "percentile" | "mse"; parsing throws InputError.
std::string_view granularity_name(Granularity g);
Granularity parse_granularity(std::string_view name);
std::string_view calibration_method_name(CalibrationMethod m);
CalibrationMethod parse_calibration_method(std::string_view name);

// One affine int8 mapping: q = clamp(round(x / scale) + zero_point, qmin, qmax) with
// round-half-away-from-zero, and x' = (q - zero_point) * scale.
struct QuantParams {
  double scale = 1.0;
  std::int32_t zero_point = 0;
  std::int32_t qmin = -128;
  std::int32_t qmax = 127;

  [[nodiscard]] std::int32_t quantize(double x) const;
  [[nodiscard]] double dequantize(std::int32_t q) const { return (q - zero_point) * scale; }
};

// Asymmetric over [min(lo, 0), max(hi, 0)]: scale = (hi - lo) / 255 (rounded to float32),
// zero_point = -128 - round(lo / scale), so that 0 is exact. A zero-width range gets scale 1.
QuantParams affine_params(double lo, double hi);
// Symmetric over [-max_abs, max_abs]: scale = max_abs / 127 (rounded to float32),
// zero_point 0, q in [-127, 127]. max_abs = 0 gets scale 0 (the quantizer lifts it).
QuantParams symmetric_params(double max_abs);

// The grid of a weight matrix (out, in) before quantize_mlp's degenerate-case lifts:
// per tensor one affine_params over [min(w, 0), max(w, 0)] (an all-zero matrix gets scale 0),
// per channel one symmetric_params(max_i |w_ji|) per row. Returns (1) or (out) grids.
// Quantization-aware training fake-quantizes the weights with exactly these.
std::vector<QuantParams> weight_params(std::span<const float> weight, std::size_t out, Granularity granularity);

struct QuantizeOptions {
  Granularity granularity = Granularity::kTensor;
  CalibrationMethod calibration = CalibrationMethod::kMinMax;
  double percentile = 99.99;  // kPercentile: the upper percentile kept, in (50, 100]
};

// One layer as the quantizer made it, and what it saw and measured: the layer itself (its
// scales, zero-points, multipliers and shifts, as in QuantizedMlp::model), the float output
// range calibration observed and the range it chose, and the errors measure_errors() finds.
// The layer is the base, not a copy of its fields: a report cannot disagree with the model.
struct LayerReport : Int8Layer {
  double observed_min = 0.0;  // float output range seen on the calibration images
  double observed_max = 0.0;
  double range_min = 0.0;  // the range the output scale covers (calibrated, includes 0)
  double range_max = 0.0;
  double max_abs_error = 0.0;  // of the dequantized int8 outputs vs the float outputs
  double sqnr_db = 0.0;        // 10 log10(sum f^2 / sum (f - deq)^2); +inf when exact
};

struct QuantizedMlp {
  Int8Model model;
  std::vector<LayerReport> layers;
  std::map<std::string, std::string> metadata;  // granularity, calibration, ... for the int8 file
};

// Quantizes `model` (validated first) using `n` calibration images of bytes, (n, inputs).
// The result passes validate_int8_model (quant/int8_model.hpp).
QuantizedMlp quantize_mlp(const model::FloatMlp& model, std::span<const std::uint8_t> calibration_pixels, std::size_t n,
                          const QuantizeOptions& options);

// Fills each report's max_abs_error and sqnr_db by running both models on `n` images
// (n, inputs): the float model on p / 255, the int8 model on the bytes.
void measure_errors(const model::FloatMlp& model, QuantizedMlp& quantized, std::span<const std::uint8_t> pixels,
                    std::size_t n);

// The reports as JSON (one object per layer; an infinite SQNR is written as null).
nlohmann::json layer_reports_json(const std::vector<LayerReport>& layers);

}  // namespace seatorch::quant
