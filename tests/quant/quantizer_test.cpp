// The quantizer: the affine mapping's error bound, calibration methods against values
// worked out by hand, the chosen integer parameters against their defining equations, and
// int8 outputs that stay close to float outputs for both granularities.
#include "seatorch/quant/quantizer.hpp"

#include "random_models.hpp"
#include "seatorch/core/argmax.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/quant/int8_engine.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace q = seatorch::quant;

namespace {

// A one-weight model y = x (no ReLU) fed with bytes p: its calibration values are p / 255.
seatorch::model::FloatMlp identity_model() {
  seatorch::model::FloatMlp m;
  m.layers.push_back({1, 1, {1.0f}, {0.0f}, false});
  return m;
}

q::QuantizedMlp quantize_identity(const std::vector<std::uint8_t>& pixels, q::CalibrationMethod method,
                                  double pct = 99.99) {
  q::QuantizeOptions options;
  options.calibration = method;
  options.percentile = pct;
  return q::quantize_mlp(identity_model(), pixels, pixels.size(), options);
}

}  // namespace

TEST_CASE("affine quantization is within half a step inside its range and exact at zero", "[quant]") {
  seatorch::core::Rng rng(8);
  for (int trial = 0; trial < 200; ++trial) {
    const double lo = -rng.uniform(0.0, 10.0), hi = rng.uniform(0.0, 10.0);
    const q::QuantParams a = trial % 2 ? q::affine_params(lo, hi) : q::symmetric_params(std::max(-lo, hi));
    CHECK(a.dequantize(a.quantize(0.0)) == 0.0);
    const double lo_in = trial % 2 ? lo : -std::max(-lo, hi), hi_in = trial % 2 ? hi : std::max(-lo, hi);
    for (int i = 0; i < 100; ++i) {
      const double x = rng.uniform(lo_in, hi_in);
      const double err = std::abs(x - a.dequantize(a.quantize(x)));
      INFO("range [" << lo_in << ", " << hi_in << "] scale " << a.scale << " zp " << a.zero_point << " x " << x
                     << " error " << err);
      // Half a step, plus the float32 rounding of the scale over at most 255 steps.
      REQUIRE(err <= a.scale / 2 * (1 + 1e-6) + 255 * a.scale * 1e-7);
    }
    CHECK(a.quantize(hi_in + 100 * a.scale) == a.qmax);
    CHECK(a.quantize(lo_in - 100 * a.scale) == a.qmin);
  }
  // Worked example of docs/QUANTIZATION.md: [-1.0, 3.0] -> s = 4/255, z = -128 + round(63.75) = -64.
  const q::QuantParams ex = q::affine_params(-1.0, 3.0);
  CHECK(ex.scale == Approx(4.0 / 255.0).epsilon(1e-7));
  CHECK(ex.zero_point == -64);
  CHECK(ex.quantize(1.0) == 0);
  CHECK(ex.quantize(-1.0) == -128);
  CHECK(ex.quantize(3.0) == 127);
}

TEST_CASE("calibration methods choose the ranges worked out by hand", "[quant]") {
  std::vector<std::uint8_t> ramp(256);
  for (std::size_t p = 0; p < 256; ++p) ramp[p] = static_cast<std::uint8_t>(p);
  // minmax: [0, 1]; the layer output y = p/255 is then represented exactly.
  const q::QuantizedMlp minmax = quantize_identity(ramp, q::CalibrationMethod::kMinMax);
  CHECK(minmax.layers[0].range_max == Approx(1.0));
  CHECK(minmax.layers[0].range_min == 0.0);
  CHECK(minmax.model.layers[0].output_zero_point == -128);
  // percentile 90 of 0..255 / 255 with linear interpolation: rank 229.5 -> 229.5 / 255.
  const q::QuantizedMlp pct = quantize_identity(ramp, q::CalibrationMethod::kPercentile, 90.0);
  CHECK(pct.layers[0].range_max == Approx(229.5 / 255.0));
  CHECK(pct.layers[0].range_min == 0.0);  // the 10th percentile is positive; the range includes 0
  CHECK(pct.metadata.at("percentile") == "90");
  // mse on a ramp that the full range represents exactly: no clipping.
  const q::QuantizedMlp mse_ramp = quantize_identity(ramp, q::CalibrationMethod::kMse);
  CHECK(mse_ramp.layers[0].range_max == Approx(1.0));
}

TEST_CASE("mse calibration picks the candidate range with the least quantization error", "[quant]") {
  // y = 0.7 x + 0.001 on a long-tailed pixel distribution; the oracle evaluates every
  // candidate range [0, t * max] by brute force with its own fake quantization.
  seatorch::model::FloatMlp model;
  model.layers.push_back({1, 1, {0.7f}, {0.001f}, false});
  seatorch::core::Rng rng(19);
  std::vector<std::uint8_t> pixels(20000);
  for (auto& p : pixels) p = static_cast<std::uint8_t>(std::min(255.0, -12.0 * std::log(1.0 - rng.uniform())));
  std::vector<float> y(pixels.size());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = 0.7f * (static_cast<float>(pixels[i]) / 255.0f) + 0.001f;
  auto mse_of = [&](double hi) {
    const double s = static_cast<float>(hi / 255.0);
    double sum = 0.0;
    for (float v : y) {
      const double qv = std::clamp(std::round(v / s) - 128.0, -128.0, 127.0);
      sum += (v - (qv + 128.0) * s) * (v - (qv + 128.0) * s);
    }
    return sum / static_cast<double>(y.size());
  };
  q::QuantizeOptions options;
  options.calibration = q::CalibrationMethod::kMse;
  const q::QuantizedMlp result = q::quantize_mlp(model, pixels, pixels.size(), options);
  const double chosen = result.layers[0].range_max;
  const double max = result.layers[0].observed_max;
  INFO("chosen " << chosen << " of observed max " << max);
  CHECK(chosen < max);  // the tail is worth clipping
  for (int step = 1; step <= 100; ++step) {
    INFO("candidate " << step << "/100: mse " << mse_of(max * step / 100.0) << " vs chosen " << mse_of(chosen));
    REQUIRE(mse_of(chosen) <= mse_of(max * step / 100.0) * (1 + 1e-9));
  }
}

TEST_CASE("quantized parameters satisfy their defining equations", "[quant]") {
  seatorch::core::Rng rng(12);
  const seatorch::model::FloatMlp model = seatorch::test::random_float_mlp({30, 16, 8, 4}, rng);
  const std::size_t n = 200;
  const std::vector<std::uint8_t> pixels = seatorch::test::random_pixels(n, 30, rng);
  for (q::Granularity g : {q::Granularity::kTensor, q::Granularity::kChannel}) {
    q::QuantizeOptions options;
    options.granularity = g;
    const q::QuantizedMlp result = q::quantize_mlp(model, pixels, n, options);
    CHECK(result.metadata.at("granularity") == q::granularity_name(g));
    CHECK(result.model.layers[0].input_zero_point == -128);
    CHECK(result.model.layers[0].input_scale == static_cast<double>(1.0f / 255.0f));
    CHECK_NOTHROW(q::validate_int8_model(result.model, "the quantized model"));
    REQUIRE(result.layers.size() == result.model.layers.size());
    for (std::size_t k = 0; k < result.model.layers.size(); ++k) {
      const q::Int8Layer& l = result.model.layers[k];
      const seatorch::model::DenseLayer& f = model.layers[k];
      INFO("granularity " << q::granularity_name(g) << " layer " << k);
      // The report is the layer it reports on, plus what calibration saw.
      const q::LayerReport& report = result.layers[k];
      CHECK(report.weight == l.weight);
      CHECK(report.multiplier == l.multiplier);
      CHECK(report.shift == l.shift);
      CHECK(report.output_scale == l.output_scale);
      CHECK(report.range_min <= std::min(report.observed_min, 0.0));
      CHECK(report.range_max >= std::max(report.observed_max, 0.0));
      CHECK(l.weight_scale.size() == (g == q::Granularity::kTensor ? 1 : l.out));
      if (g == q::Granularity::kChannel) CHECK(l.weight_zero_point == 0);
      if (l.relu) CHECK(l.output_zero_point == -128);  // a ReLU output range starts at 0
      if (k > 0) CHECK(l.input_scale == result.model.layers[k - 1].output_scale);
      for (std::size_t j = 0; j < l.out; ++j) {
        const double ws = l.weight_scale.size() == 1 ? l.weight_scale[0] : l.weight_scale[j];
        CHECK(static_cast<double>(static_cast<float>(ws)) == ws);
        CHECK(l.bias[j] == std::llround(f.bias[j] / (l.input_scale * ws)));
        const double real = l.input_scale * ws / l.output_scale;
        const double represented = std::ldexp(static_cast<double>(l.multiplier[j]), -31 - l.shift[j]);
        CHECK(std::abs(represented - real) <= std::ldexp(real, -30));
        for (std::size_t i = 0; i < l.in; ++i) {
          const int qw = l.weight[j * l.in + i];
          if (g == q::Granularity::kChannel) CHECK(qw >= -127);
          const double deq = (qw - l.weight_zero_point) * ws;
          REQUIRE(std::abs(deq - f.weight[j * l.in + i]) <= ws / 2 * (1 + 1e-6));
        }
      }
    }
  }
}

TEST_CASE("int8 outputs stay close to float outputs for both granularities and every calibration", "[quant]") {
  seatorch::core::Rng rng(5);
  const seatorch::model::FloatMlp model = seatorch::test::random_float_mlp({64, 32, 16, 10}, rng);
  const std::size_t n = 300;
  const std::vector<std::uint8_t> calib = seatorch::test::random_pixels(n, 64, rng);
  const std::vector<std::uint8_t> test = seatorch::test::random_pixels(n, 64, rng);
  std::vector<float> x(test.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(test[i]) / 255.0f;
  const std::vector<float> float_logits = seatorch::model::float_forward(model, x, n);
  for (q::Granularity g : {q::Granularity::kTensor, q::Granularity::kChannel}) {
    for (q::CalibrationMethod m :
         {q::CalibrationMethod::kMinMax, q::CalibrationMethod::kPercentile, q::CalibrationMethod::kMse}) {
      q::QuantizeOptions options;
      options.granularity = g;
      options.calibration = m;
      q::QuantizedMlp result = q::quantize_mlp(model, calib, n, options);
      const q::Int8Engine engine(result.model);
      const std::vector<std::int32_t> classes = engine.predict(test, n);
      std::size_t agree = 0;
      for (std::size_t s = 0; s < n; ++s) {
        agree +=
            static_cast<std::size_t>(classes[s]) == seatorch::core::argmax(std::span(float_logits).subspan(s * 10, 10));
      }
      INFO(q::granularity_name(g) << " " << q::calibration_method_name(m) << ": argmax agreement " << agree << "/"
                                  << n);
      CHECK(agree >= n * 9 / 10);
      // On the calibration images minmax clips nothing, so the error is rounding only: a
      // few output steps, accumulated over the layers.
      q::measure_errors(model, result, calib, n);
      for (const q::LayerReport& r : result.layers) {
        INFO("layer " << r.in << "->" << r.out << " SQNR " << r.sqnr_db << " dB, max error " << r.max_abs_error
                      << ", output scale " << r.output_scale);
        CHECK(r.sqnr_db > 30.0);
        if (m == q::CalibrationMethod::kMinMax) CHECK(r.max_abs_error < 8 * r.output_scale);
      }
      const nlohmann::json json = q::layer_reports_json(result.layers);
      CHECK(json.size() == 3);
      CHECK(json[0].contains("multiplier"));
    }
  }
}

TEST_CASE("measure_errors sums over every image, however many batches they take", "[quant]") {
  // More images than one batch of measure_errors, the last batch short: its reports must be
  // the definition's, both models run on all images at once and every element summed in order.
  seatorch::core::Rng rng(11);
  const seatorch::model::FloatMlp model = seatorch::test::random_float_mlp({64, 32, 16, 10}, rng);
  const std::size_t n = 2500;
  const std::vector<std::uint8_t> calib = seatorch::test::random_pixels(300, 64, rng);
  const std::vector<std::uint8_t> test = seatorch::test::random_pixels(n, 64, rng);
  q::QuantizedMlp result = q::quantize_mlp(model, calib, 300, q::QuantizeOptions{});
  q::measure_errors(model, result, test, n);

  std::vector<float> x(test.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(test[i]) / 255.0f;
  std::vector<std::vector<float>> expected;
  seatorch::model::float_forward(model, x, n, &expected);
  std::vector<std::int8_t> logits(n * 10);
  std::vector<std::vector<std::int8_t>> actual;
  q::Int8Engine(result.model).forward(test, n, logits, &actual);
  for (std::size_t k = 0; k < result.layers.size(); ++k) {
    const q::LayerReport& r = result.layers[k];
    double signal = 0.0, noise = 0.0, max_abs = 0.0;
    for (std::size_t i = 0; i < expected[k].size(); ++i) {
      const double f = expected[k][i];
      const double deq = (actual[k][i] - r.output_zero_point) * r.output_scale;
      signal += f * f;
      noise += (f - deq) * (f - deq);
      max_abs = std::max(max_abs, std::abs(f - deq));
    }
    INFO("layer " << k << ": SQNR " << r.sqnr_db << " dB against " << 10.0 * std::log10(signal / noise)
                  << ", max error " << r.max_abs_error << " against " << max_abs);
    CHECK(r.sqnr_db == 10.0 * std::log10(signal / noise));
    CHECK(r.max_abs_error == max_abs);
  }
}

TEST_CASE("the quantizer rejects bad models and options", "[quant]") {
  seatorch::core::Rng rng(2);
  seatorch::model::FloatMlp model = seatorch::test::random_float_mlp({8, 4, 3}, rng);
  const std::vector<std::uint8_t> pixels = seatorch::test::random_pixels(10, 8, rng);
  q::QuantizeOptions options;
  SECTION("NaN weight") {
    model.layers[1].weight[2] = std::numeric_limits<float>::quiet_NaN();
    CHECK_THROWS_WITH(q::quantize_mlp(model, pixels, 10, options),
                      Catch::Contains("2.weight") && Catch::Contains("nan"));
  }
  SECTION("infinite bias") {
    model.layers[0].bias[1] = std::numeric_limits<float>::infinity();
    CHECK_THROWS_WITH(q::quantize_mlp(model, pixels, 10, options), Catch::Contains("0.bias"));
  }
  SECTION("finite weights whose sums overflow float") {
    // From a fine-tuning at a learning rate of 1e30 the first error was a requantization
    // multiplier of NaN "outside (0, 1)": the layer that overflows is named instead.
    for (float& w : model.layers[0].weight) w = 1e30f;
    for (float& w : model.layers[1].weight) w = 1e30f;
    CHECK_THROWS_WITH(q::quantize_mlp(model, pixels, 10, options),
                      Catch::Contains("overflows float: layer 1's outputs") && Catch::Contains("reach inf") &&
                          Catch::Contains("lower learning rate"));
  }
  SECTION("shapes that do not chain") {
    model.layers[1].in = 5;
    model.layers[1].weight.resize(15);
    CHECK_THROWS_WITH(q::quantize_mlp(model, pixels, 10, options), Catch::Contains("do not chain"));
  }
  SECTION("no calibration images") {
    CHECK_THROWS_AS(q::quantize_mlp(model, {}, 0, options), seatorch::core::InputError);
  }
  SECTION("bad percentile") {
    options.percentile = 20;
    CHECK_THROWS_AS(q::quantize_mlp(model, pixels, 10, options), seatorch::core::InputError);
  }
  SECTION("names") {
    CHECK(q::parse_granularity("channel") == q::Granularity::kChannel);
    CHECK(q::parse_calibration_method("mse") == q::CalibrationMethod::kMse);
    CHECK_THROWS_WITH(q::parse_granularity("row"), Catch::Contains("tensor or channel"));
    CHECK_THROWS_WITH(q::parse_calibration_method("kl"), Catch::Contains("minmax"));
  }
}

TEST_CASE("degenerate layers still give representable multipliers", "[quant]") {
  // An all-zero layer and a dead ReLU layer: scales are lifted so every multiplier is valid.
  seatorch::model::FloatMlp model;
  model.layers.push_back({4, 3, std::vector<float>(12, 0.0f), {0.0f, 0.5f, -1.0f}, true});
  model.layers.push_back({3, 2, {1e-30f, 0, 0, 0, 0, 0}, {0.25f, -0.25f}, false});
  std::vector<std::uint8_t> pixels(40, 200);
  for (q::Granularity g : {q::Granularity::kTensor, q::Granularity::kChannel}) {
    q::QuantizeOptions options;
    options.granularity = g;
    q::QuantizedMlp result = q::quantize_mlp(model, pixels, 10, options);
    q::measure_errors(model, result, pixels, 10);
    INFO(q::granularity_name(g));
    CHECK(result.layers[1].max_abs_error <= result.layers[1].output_scale);
  }
}
