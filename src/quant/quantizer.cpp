// Post-training quantization: calibration, scale and zero-point choice, integer parameters.
#include "seatorch/quant/quantizer.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/kernels/fixed_point.hpp"
#include "seatorch/kernels/pixel_values.hpp"
#include "seatorch/quant/int8_engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace seatorch::quant {
namespace {

constexpr double kQMin = -128.0;
constexpr double kQMax = 127.0;
// A multiplier close to 1 may round up to 2^31; keep it at most this.
constexpr double kMaxMultiplier = 0.99;
// The smallest multiplier quantize_multiplier represents (shift <= 31).
constexpr double kMinMultiplier = 0x1p-31;
// The MSE search tries the observed range shrunk by 1/kMseSteps ... kMseSteps/kMseSteps.
constexpr int kMseSteps = 100;
// The MSE search looks at most at this many calibration values (an even subsample).
constexpr std::size_t kMseMaxValues = std::size_t{1} << 18;

double to_f32(double v) { return static_cast<double>(static_cast<float>(v)); }

std::int32_t zero_point_for(double lo, double scale) {
  return static_cast<std::int32_t>(std::clamp(kQMin - std::round(lo / scale), kQMin, kQMax));
}

// ---- calibration -----------------------------------------------------------------------

// The p-th percentile (0..100) with linear interpolation between ranks, as numpy's default.
double percentile_of(std::vector<float>& values, double p) {
  const double pos = p / 100.0 * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(lo), values.end());
  const double v_lo = values[lo];
  if (lo + 1 >= values.size()) return v_lo;
  const double v_hi = *std::min_element(values.begin() + static_cast<std::ptrdiff_t>(lo) + 1, values.end());
  return v_lo + (pos - static_cast<double>(lo)) * (v_hi - v_lo);
}

double fake_quant_mse(std::span<const float> values, double lo, double hi) {
  const QuantParams a = affine_params(lo, hi);
  double sum = 0.0;
  for (float v : values) {
    const double deq = a.dequantize(a.quantize(v));
    sum += (v - deq) * (v - deq);
  }
  return sum / static_cast<double>(values.size());
}

// The range [t*lo, t*hi], t in {1/kMseSteps, ..., 1}, with the smallest quantization MSE.
std::pair<double, double> mse_range(std::span<const float> all, double lo, double hi) {
  std::vector<float> values;
  const std::size_t stride = (all.size() + kMseMaxValues - 1) / kMseMaxValues;
  for (std::size_t i = 0; i < all.size(); i += stride) values.push_back(all[i]);
  std::pair<double, double> best{lo, hi};
  double best_mse = std::numeric_limits<double>::infinity();
  for (int step = kMseSteps; step >= 1; --step) {
    const double t = static_cast<double>(step) / kMseSteps;
    const double mse = fake_quant_mse(values, t * lo, t * hi);
    if (mse < best_mse) {
      best_mse = mse;
      best = {t * lo, t * hi};
    }
  }
  return best;
}

// A float model whose weights are finite can still overflow float in its layers' sums: its
// ranges, scales and multipliers would then be NaN, and the first error the user saw was a
// requantization multiplier "outside (0, 1)". A model from a diverging run (a learning rate
// far too high, here or in the quantization-aware fine-tuning) is where such weights come from.
void check_outputs_finite(std::span<const float> outputs, std::size_t layer) {
  const auto bad = std::find_if(outputs.begin(), outputs.end(), [](float v) { return !std::isfinite(v); });
  if (bad != outputs.end()) {
    throw core::input_error(
        "the model to quantize overflows float: layer {}'s outputs on the calibration images reach {}; the model, or "
        "its quantization-aware fine-tuning, diverged: train it again (e.g. with a lower learning rate)",
        layer, *bad);
  }
}

struct Calibration {
  double observed_min = 0.0, observed_max = 0.0;
  double lo = 0.0, hi = 0.0;  // chosen, contains 0
};

Calibration calibrate(std::vector<float> values, const QuantizeOptions& options) {
  Calibration c;
  const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  c.observed_min = *mn;
  c.observed_max = *mx;
  double lo = c.observed_min, hi = c.observed_max;
  switch (options.calibration) {
    case CalibrationMethod::kMinMax:
      break;
    case CalibrationMethod::kPercentile:
      hi = percentile_of(values, options.percentile);
      lo = percentile_of(values, 100.0 - options.percentile);
      break;
    case CalibrationMethod::kMse:
      std::tie(lo, hi) = mse_range(values, std::min(lo, 0.0), std::max(hi, 0.0));
      break;
  }
  c.lo = std::min(lo, 0.0);
  c.hi = std::max(hi, 0.0);
  return c;
}

// ---- weights ---------------------------------------------------------------------------

// The weight mapping of each row: one shared QuantParams per-tensor, one per row per-channel.
struct WeightParams {
  std::vector<QuantParams> rows;  // (1) or (out)
  double lo = 0.0;                // per-tensor: the range's lower end, which fixes the zero-point
};

WeightParams layer_weight_params(const model::DenseLayer& layer, Granularity granularity) {
  return {weight_params(layer.weight, layer.out, granularity),
          std::min<double>(*std::min_element(layer.weight.begin(), layer.weight.end()), 0.0)};
}

// One layer, given its input mapping and its calibrated output range.
Int8Layer quantize_layer(const model::DenseLayer& layer, const QuantParams& input, const Calibration& range,
                         Granularity granularity) {
  WeightParams w = layer_weight_params(layer, granularity);
  QuantParams output = affine_params(range.lo, range.hi);
  // A multiplier s_x s_w / s_y must lie in (0, 1): widen the output scale when the range is
  // below what one accumulator step covers, and lift tiny (or zero) weight scales; their
  // rows quantize to (nearly) all zero-point anyway.
  double max_ws = 0.0;
  for (const QuantParams& r : w.rows) max_ws = std::max(max_ws, r.scale);
  if (input.scale * max_ws / output.scale > kMaxMultiplier) {
    output.scale = to_f32(input.scale * max_ws / kMaxMultiplier * (1.0 + 0x1p-20));
    output.zero_point = zero_point_for(range.lo, output.scale);
  }
  // The lifted scale also keeps the bias within half the bound validate_int8_model checks.
  const std::int64_t bias_limit = int8_bias_limit(layer.in);
  for (std::size_t r = 0; r < w.rows.size(); ++r) {
    double max_bias = 0.0;
    for (std::size_t j = 0; j < layer.out; ++j) {
      if (w.rows.size() == 1 || j == r) max_bias = std::max<double>(max_bias, std::abs(layer.bias[j]));
    }
    const double min_ws =
        to_f32(std::max(output.scale * kMinMultiplier, max_bias / static_cast<double>(bias_limit) * 2.0) / input.scale *
               (1.0 + 0x1p-20));
    if (w.rows[r].scale >= min_ws) continue;
    w.rows[r].scale = min_ws;
    if (granularity == Granularity::kTensor) w.rows[r].zero_point = zero_point_for(w.lo, min_ws);
  }

  Int8Layer q;
  q.in = layer.in;
  q.out = layer.out;
  q.relu = layer.relu;
  q.input_zero_point = input.zero_point;
  q.weight_zero_point = w.rows.front().zero_point;
  q.output_zero_point = output.zero_point;
  q.input_scale = input.scale;
  for (const QuantParams& r : w.rows) q.weight_scale.push_back(r.scale);
  q.output_scale = output.scale;
  for (std::size_t j = 0; j < layer.out; ++j) {
    const QuantParams& wp = w.rows.size() == 1 ? w.rows.front() : w.rows[j];
    for (std::size_t i = 0; i < layer.in; ++i)
      q.weight.push_back(static_cast<std::int8_t>(wp.quantize(layer.weight[j * layer.in + i])));
    // |bias| <= bias_limit / 2 by the lift above.
    const double bias = std::round(layer.bias[j] / (input.scale * wp.scale));
    q.bias.push_back(static_cast<std::int32_t>(bias));
    const kernels::QuantizedMultiplier m = kernels::quantize_multiplier(input.scale * wp.scale / output.scale);
    q.multiplier.push_back(m.multiplier);
    q.shift.push_back(m.shift);
  }
  return q;
}

}  // namespace

std::int32_t QuantParams::quantize(double x) const {
  return static_cast<std::int32_t>(
      std::clamp(std::round(x / scale) + zero_point, static_cast<double>(qmin), static_cast<double>(qmax)));
}

QuantParams affine_params(double lo, double hi) {
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  if (hi - lo <= 0.0) return {};  // all zeros: any scale represents them exactly
  const double s = to_f32((hi - lo) / 255.0);
  return {s, zero_point_for(lo, s), -128, 127};
}

QuantParams symmetric_params(double max_abs) { return {to_f32(max_abs / 127.0), 0, -127, 127}; }

std::vector<QuantParams> weight_params(std::span<const float> weight, std::size_t out, Granularity granularity) {
  if (granularity == Granularity::kTensor) {
    const auto [mn, mx] = std::minmax_element(weight.begin(), weight.end());
    const double lo = std::min<double>(*mn, 0.0), hi = std::max<double>(*mx, 0.0);
    // An all-zero matrix gets scale 0 here; quantize_layer lifts it.
    return {hi > lo ? affine_params(lo, hi) : QuantParams{0.0, 0, -128, 127}};
  }
  const std::size_t in = weight.size() / out;
  std::vector<QuantParams> rows;
  for (std::size_t j = 0; j < out; ++j) {
    double max_abs = 0.0;
    for (std::size_t i = 0; i < in; ++i) max_abs = std::max<double>(max_abs, std::abs(weight[j * in + i]));
    rows.push_back(symmetric_params(max_abs));
  }
  return rows;
}

std::string_view granularity_name(Granularity g) { return g == Granularity::kTensor ? "tensor" : "channel"; }

Granularity parse_granularity(std::string_view name) {
  if (name == "tensor") return Granularity::kTensor;
  if (name == "channel") return Granularity::kChannel;
  throw core::input_error("unknown granularity '{}'; expected tensor or channel", name);
}

std::string_view calibration_method_name(CalibrationMethod m) {
  switch (m) {
    case CalibrationMethod::kMinMax:
      return "minmax";
    case CalibrationMethod::kPercentile:
      return "percentile";
    case CalibrationMethod::kMse:
      return "mse";
  }
  return "?";
}

CalibrationMethod parse_calibration_method(std::string_view name) {
  for (auto m : {CalibrationMethod::kMinMax, CalibrationMethod::kPercentile, CalibrationMethod::kMse}) {
    if (calibration_method_name(m) == name) return m;
  }
  throw core::input_error("unknown calibration method '{}'; expected minmax, percentile or mse", name);
}

QuantizedMlp quantize_mlp(const model::FloatMlp& model, std::span<const std::uint8_t> calibration_pixels, std::size_t n,
                          const QuantizeOptions& options) {
  model::validate_float_mlp(model, "the model to quantize");
  if (n == 0 || calibration_pixels.size() != n * model.inputs()) {
    throw core::input_error(
        "quantization needs at least one calibration image of {} pixels (got {} values for {} images)", model.inputs(),
        calibration_pixels.size(), n);
  }
  if (!(options.percentile > 50.0 && options.percentile <= 100.0)) {
    throw core::input_error("percentile {} is outside (50, 100]; use e.g. 99.99", options.percentile);
  }
  std::vector<float> x(calibration_pixels.size());  // (n, inputs)
  kernels::pixel_values(calibration_pixels, x);
  std::vector<std::vector<float>> outputs;
  model::float_forward(model, x, n, &outputs);

  QuantizedMlp result;
  QuantParams input{to_f32(1.0 / kernels::kPixelMax), -128, -128, 127};  // the pixel encoding: q = p - 128
  for (std::size_t k = 0; k < model.layers.size(); ++k) {
    check_outputs_finite(outputs[k], k);
    const Calibration range = calibrate(std::move(outputs[k]), options);
    Int8Layer layer = quantize_layer(model.layers[k], input, range, options.granularity);
    LayerReport report;
    static_cast<Int8Layer&>(report) = layer;
    report.observed_min = range.observed_min;
    report.observed_max = range.observed_max;
    report.range_min = range.lo;
    report.range_max = range.hi;
    input = {layer.output_scale, layer.output_zero_point, -128, 127};
    result.model.layers.push_back(std::move(layer));
    result.layers.push_back(std::move(report));
  }
  result.metadata["granularity"] = std::string(granularity_name(options.granularity));
  result.metadata["calibration"] = std::string(calibration_method_name(options.calibration));
  result.metadata["calibration_images"] = std::to_string(n);
  if (options.calibration == CalibrationMethod::kPercentile)
    result.metadata["percentile"] = fmt::format("{}", options.percentile);
  validate_int8_model(result.model, "the quantized model");
  return result;
}

void measure_errors(const model::FloatMlp& model, QuantizedMlp& quantized, std::span<const std::uint8_t> pixels,
                    std::size_t n) {
  // Both models' layer outputs for a batch of images at a time, each layer's sums carried
  // from batch to batch: the elements are summed in the same order as over all n at once,
  // without holding every layer's outputs for a whole test set (10,000 MNIST images made
  // the quantizer's peak 147 MB, and half its time was spent touching fresh pages).
  constexpr std::size_t kBatch = 1024;
  const std::size_t inputs = model.inputs();
  const std::size_t layers = quantized.layers.size();
  std::vector<double> signal(layers, 0.0), noise(layers, 0.0), max_abs(layers, 0.0);
  const Int8Engine engine(quantized.model);
  std::vector<float> x;             // (batch, inputs)
  std::vector<std::int8_t> logits;  // (batch, outputs)
  std::vector<std::vector<float>> expected;
  std::vector<std::vector<std::int8_t>> actual;
  for (std::size_t first = 0; first < n; first += kBatch) {
    const std::size_t count = std::min(kBatch, n - first);
    const std::span<const std::uint8_t> batch = pixels.subspan(first * inputs, count * inputs);
    x.resize(batch.size());
    kernels::pixel_values(batch, x);
    model::float_forward(model, x, count, &expected);
    logits.resize(count * quantized.model.outputs());
    engine.forward(batch, count, logits, &actual);
    for (std::size_t k = 0; k < layers; ++k) {
      const LayerReport& report = quantized.layers[k];
      for (std::size_t i = 0; i < expected[k].size(); ++i) {
        const double f = expected[k][i];
        const double deq = (actual[k][i] - report.output_zero_point) * report.output_scale;
        signal[k] += f * f;
        noise[k] += (f - deq) * (f - deq);
        max_abs[k] = std::max(max_abs[k], std::abs(f - deq));
      }
    }
  }
  for (std::size_t k = 0; k < layers; ++k) {
    LayerReport& report = quantized.layers[k];
    report.max_abs_error = max_abs[k];
    report.sqnr_db = noise[k] > 0.0 ? 10.0 * std::log10(signal[k] / noise[k]) : std::numeric_limits<double>::infinity();
  }
}

nlohmann::json layer_reports_json(const std::vector<LayerReport>& layers) {
  nlohmann::json out = nlohmann::json::array();
  for (const LayerReport& r : layers) {
    out.push_back({{"in", r.in},
                   {"out", r.out},
                   {"relu", r.relu},
                   {"observed_range", {r.observed_min, r.observed_max}},
                   {"calibrated_range", {r.range_min, r.range_max}},
                   {"input_scale", r.input_scale},
                   {"input_zero_point", r.input_zero_point},
                   {"weight_scale", r.weight_scale},
                   {"weight_zero_point", r.weight_zero_point},
                   {"output_scale", r.output_scale},
                   {"output_zero_point", r.output_zero_point},
                   {"multiplier", r.multiplier},
                   {"shift", r.shift},
                   {"max_abs_error", r.max_abs_error},
                   {"sqnr_db", std::isfinite(r.sqnr_db) ? nlohmann::json(r.sqnr_db) : nlohmann::json(nullptr)}});
  }
  return out;
}

}  // namespace seatorch::quant
