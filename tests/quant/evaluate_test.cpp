// Evaluation and benchmarking: byte recovery from features, accuracy and confusion against
// a count made with the reference model (on one to three threads), and the throughput
// report's shape.
#include "seatorch/quant/evaluate.hpp"

#include "random_models.hpp"
#include "seatorch/core/argmax.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/quant/quantizer.hpp"

#include <catch2/catch.hpp>

namespace q = seatorch::quant;

namespace {

seatorch::data::Dataset dataset_from(const std::vector<std::uint8_t>& pixels, std::size_t features, std::size_t classes,
                                     seatorch::core::Rng& rng) {
  seatorch::data::Dataset d;
  d.features = features;
  d.classes = classes;
  d.pixels = pixels;
  for (std::size_t s = 0; s < pixels.size() / features; ++s)
    d.y.push_back(static_cast<std::int32_t>(rng.below(classes)));
  return d;
}

}  // namespace

TEST_CASE("evaluate_int8 and evaluate_float count like the reference models", "[quant]") {
  seatorch::core::Rng rng(10);
  const seatorch::model::FloatMlp model = seatorch::test::random_float_mlp({24, 12, 5}, rng);
  const std::size_t n = 1500;  // more than one evaluation batch
  std::vector<std::uint8_t> pixels = seatorch::test::random_pixels(n, 24, rng);
  // Every other run of 128 images (an evaluation batch) about as sparse as digits, 16 % of
  // their pixels lit against random_pixels' 40 %, so that the float model's first layer takes
  // both of its paths: sparse below kernels::kSparseDensity (30 %), dense above it.
  for (std::size_t s = 0; s < n; ++s) {
    for (std::size_t i = 0; i < 24; ++i) {
      if ((s / 128) % 2 == 0 && rng.below(5) < 3) pixels[s * 24 + i] = 0;
    }
  }
  const seatorch::data::Dataset data = dataset_from(pixels, 24, 5, rng);
  const q::QuantizedMlp quantized = q::quantize_mlp(model, std::span(pixels).first(200 * 24), 200, {});
  const q::Int8Engine engine(quantized.model);
  const seatorch::model::Evaluation e8 = q::evaluate_int8(engine, data);
  const seatorch::model::Evaluation ef = seatorch::model::evaluate_float(model, data);
  // The batches split across threads, each running its own forwards: the same tally.
  for (std::size_t threads : {2u, 3u}) {
    const seatorch::core::ScopedThreads count(threads);
    INFO(threads << " threads");
    CHECK(q::evaluate_int8(engine, data).confusion() == e8.confusion());
    CHECK(seatorch::model::evaluate_float(model, data).confusion() == ef.confusion());
    CHECK(seatorch::model::evaluate_float(model, data, 300, 700).confusion() ==
          seatorch::model::evaluate_float(model, data.slice(300, 700)).confusion());
  }
  std::size_t correct8 = 0, correctf = 0;
  for (std::size_t s = 0; s < n; ++s) {
    const auto image = std::span(pixels).subspan(s * 24, 24);
    correct8 +=
        seatorch::core::argmax(q::int8_forward_ref(quantized.model, image)) == static_cast<std::size_t>(data.y[s]);
    std::vector<float> x(24);  // the float model's view of the image: p / 255
    for (std::size_t i = 0; i < 24; ++i) x[i] = static_cast<float>(image[i]) / 255.0f;
    const std::vector<float> logits = seatorch::model::float_forward(model, x, 1);
    correctf += seatorch::core::argmax(logits) == static_cast<std::size_t>(data.y[s]);
  }
  CHECK(e8.correct() == correct8);
  CHECK(ef.correct() == correctf);
  CHECK(e8.samples() == n);
  std::size_t sum = 0, diagonal = 0;
  for (std::size_t i = 0; i < 25; ++i) sum += e8.confusion()[i];
  for (std::size_t c = 0; c < 5; ++c) diagonal += e8.confusion()[c * 5 + c];
  CHECK(sum == n);
  CHECK(diagonal == e8.correct());
  CHECK(e8.accuracy() == Approx(static_cast<double>(correct8) / n));

  seatorch::data::Dataset wrong = data;
  wrong.classes = 7;
  CHECK_THROWS_WITH(seatorch::model::evaluate_float(model, wrong), Catch::Contains("7 classes"));
}

TEST_CASE("inference_paths run the float model and every int8 kernel on the same images", "[quant]") {
  seatorch::core::Rng rng(11);
  const seatorch::model::FloatMlp model = seatorch::test::random_float_mlp({32, 16, 4}, rng);
  const std::size_t n = 70, batch = 16, in = 32, out = 4;  // 4 full batches and one of 6
  const std::vector<std::uint8_t> pixels = seatorch::test::random_pixels(n, in, rng);
  const q::QuantizedMlp quantized = q::quantize_mlp(model, pixels, n, {});
  const std::vector<q::InferencePath> paths = q::inference_paths(model, quantized.model, pixels, n, batch);
  const std::vector<std::string> kernels = seatorch::kernels::int8_kernel_names();
  REQUIRE(paths.size() == 1 + kernels.size());
  CHECK(paths[0].name == "float");
  CHECK(paths[0].kernel.empty());
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    CHECK(paths[i + 1].name == "int8 " + kernels[i]);
    CHECK(paths[i + 1].kernel == kernels[i]);
  }
  CHECK_THROWS_WITH(q::inference_paths(model, quantized.model, pixels, n + 1, batch), Catch::Contains("same shape"));

  // Each pass's own logits against the reference models, image by image: float_forward on
  // pixel / 255 floats for the float path, int8_forward_ref for every int8 kernel's path.
  for (const q::InferencePath& path : paths) {
    path.pass();
    const std::vector<float> logits = path.logits();
    REQUIRE(logits.size() == n * out);
    for (std::size_t s = 0; s < n; ++s) {
      const auto image = std::span(pixels).subspan(s * in, in);
      std::vector<float> expected;
      if (path.name == "float") {
        std::vector<float> x(in);
        for (std::size_t i = 0; i < in; ++i) x[i] = static_cast<float>(image[i]) / 255.0f;
        expected = seatorch::model::float_forward(model, x, 1);
      } else {
        const std::vector<std::int8_t> ref = q::int8_forward_ref(quantized.model, image);
        expected.assign(ref.begin(), ref.end());
      }
      for (std::size_t c = 0; c < out; ++c) {
        INFO(path.name << " image " << s << " logit " << c);
        if (path.name == "float") {
          CHECK(logits[s * out + c] == Approx(expected[c]).margin(1e-5));
        } else {
          CHECK(logits[s * out + c] == expected[c]);
        }
      }
    }
  }
}
