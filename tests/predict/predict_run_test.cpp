// run_predict on pictures of MNIST test digits: a small model trained on the committed subset
// gives each picture the class it gives the original digit, as a float checkpoint (softmax
// probabilities) and as an int8 model (the reference's logits); the Mini NPU's answer equals
// the integer reference of the .hex; --save-input writes exactly the bytes the models saw; a
// bad picture is reported before a missing model.
#include "seatorch/predict/predict_run.hpp"

#include "../data/data_test_util.hpp"
#include "../image/image_test_util.hpp"
#include "seatorch/core/argmax.hpp"
#include "seatorch/image/pnm.hpp"
#include "seatorch/model/float_checkpoint.hpp"
#include "seatorch/npu/hex.hpp"
#include "seatorch/npu/image_builder.hpp"
#include "seatorch/quant/evaluate.hpp"
#include "seatorch/quant/int8_file.hpp"
#include "seatorch/quant/quantizer.hpp"

#include <catch2/catch.hpp>

#include <numeric>

namespace {

namespace q = seatorch::quant;
using seatorch::image::GrayImage;

// The float model, its int8 version and its .hex, written into `dir`.
struct Models {
  seatorch::model::FloatMlp float_model;
  q::Int8Model int8_model;
};

Models write_models(const seatorch::test::ScratchDir& dir) {
  const seatorch::data::DataSplit data = seatorch::test::load_mnist_small();
  Models m;
  m.float_model = seatorch::test::small_mnist_model(data);
  seatorch::model::save_float_checkpoint(dir / "model.safetensors", m.float_model, {{"dataset", "mnist"}});
  m.int8_model = q::quantize_mlp(m.float_model, std::span(data.train.pixels).first(200 * 784), 200, {}).model;
  q::save_int8_model(dir / "model.int8.safetensors", m.int8_model, {{"dataset", "mnist"}});
  seatorch::npu::write_npu_hex(dir / "model.hex", seatorch::npu::build_npu_image(m.int8_model));
  return m;
}

}  // namespace

TEST_CASE("run_predict classifies pictures of digits with the float and int8 models and the NPU", "[predict]") {
  const seatorch::test::ScratchDir dir;
  const Models models = write_models(dir);
  const std::vector<GrayImage> digits = seatorch::test::mnist_test_digits(3);
  seatorch::predict::PredictOptions options;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    const GrayImage paper = seatorch::test::paper_digit(digits[i], 4, 10, 20, 30, 5);
    const auto path = dir / ("digit" + std::to_string(i) + ".png");
    seatorch::test::write_file(path, seatorch::test::png_bytes(paper.pixels, paper.width, paper.height, 1));
    options.images.push_back(path);
  }

  options.model = dir / "model.safetensors";
  const seatorch::predict::PredictSummary f = seatorch::predict::run_predict(options);
  CHECK(f.kind == "float");
  CHECK(f.architecture == "784-32-10");
  REQUIRE(f.images.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const seatorch::predict::ImagePrediction& p = f.images[i];
    INFO("digit " << i);
    CHECK(p.width == 28 * 4 + 40);
    CHECK(p.input.inverted);
    // The prepared input is the original digit within a level (tests/image/digit_image_test.cpp),
    // so the class must be the one the model gives the original.
    std::vector<float> x(784);
    for (std::size_t k = 0; k < 784; ++k) x[k] = static_cast<float>(digits[i].pixels[k]) / 255.0f;
    const std::vector<float> logits = seatorch::model::float_forward(models.float_model, x, 1);
    CHECK(p.predicted == seatorch::core::argmax(logits));
    REQUIRE(p.probabilities.size() == 10);
    CHECK(std::accumulate(p.probabilities.begin(), p.probabilities.end(), 0.0) == Approx(1.0));
    CHECK(p.probabilities[p.predicted] == *std::max_element(p.probabilities.begin(), p.probabilities.end()));
    CHECK(p.int8_logits.empty());
    CHECK_FALSE(p.npu.has_value());
  }

  options.model = dir / "model.int8.safetensors";
  options.npu = true;
  options.hex = dir / "model.hex";
  options.images.resize(1);
  options.save_input = dir / "seen.pgm";
  const seatorch::predict::PredictSummary n = seatorch::predict::run_predict(options);
  CHECK(n.kind == "int8");
  REQUIRE(n.images.size() == 1);
  const seatorch::predict::ImagePrediction& p = n.images.front();
  CHECK(p.int8_logits == q::int8_forward_ref(models.int8_model, p.input.pixels));
  CHECK(p.predicted == seatorch::core::argmax(p.int8_logits));
  REQUIRE(p.npu.has_value());
  CHECK(p.npu->matches_reference());
  CHECK(p.npu->logits == p.int8_logits);
  CHECK(p.npu->predicted == p.predicted);
  CHECK(n.npu_agrees());
  CHECK(n.to_json().at("npu_agrees") == true);
  // The saved input is the 28 x 28 the models saw.
  const GrayImage seen = seatorch::image::parse_pnm(seatorch::test::read_file(dir / "seen.pgm"), "seen.pgm");
  CHECK(seen.width == 28);
  CHECK(seen.pixels == p.input.pixels);
}

TEST_CASE("run_predict reports a bad picture before a missing model and checks its options", "[predict]") {
  const seatorch::test::ScratchDir dir;
  seatorch::test::write_text(dir / "notes.txt", "not a picture\n");
  seatorch::predict::PredictOptions options;
  options.model = dir / "missing.safetensors";
  options.images = {dir / "notes.txt"};
  seatorch::test::check_input_error([&] { seatorch::predict::run_predict(options); },
                                    ".*notes\\.txt: not a picture seatorch can read .*");
  options.images = {};
  seatorch::test::check_input_error([&] { seatorch::predict::run_predict(options); }, "give a picture to classify");
  options.images = {dir / "a.png", dir / "b.png"};
  options.save_input = dir / "seen.pgm";
  seatorch::test::check_input_error([&] { seatorch::predict::run_predict(options); },
                                    "saving the prepared input needs exactly one picture, got 2");
  // A picture that is fine, and a model that is not an image model.
  const GrayImage digit = seatorch::test::mnist_test_digits(1).front();
  seatorch::test::write_file(dir / "d.pgm", seatorch::image::pgm_bytes(digit));
  seatorch::model::FloatMlp odd;
  odd.layers.push_back({5, 2, std::vector<float>(10, 0.5f), {0.0f, 1.0f}, false});
  seatorch::model::save_float_checkpoint(dir / "odd.safetensors", odd);
  options.images = {dir / "d.pgm"};
  options.save_input.clear();
  options.model = dir / "odd.safetensors";
  seatorch::test::check_input_error([&] { seatorch::predict::run_predict(options); },
                                    ".*odd\\.safetensors takes 5 inputs, not a square picture .*");
}

TEST_CASE("run_predict refuses an NPU image of another model than the one it was given", "[predict]") {
  const seatorch::test::ScratchDir dir;
  const Models models = write_models(dir);
  const GrayImage digit = seatorch::test::mnist_test_digits(1).front();
  seatorch::test::write_file(dir / "d.pgm", seatorch::image::pgm_bytes(digit));
  seatorch::predict::PredictOptions options;
  options.images = {dir / "d.pgm"};
  options.npu = true;

  // The same architecture, one weight another: the NPU would answer for another model.
  q::Int8Model other = models.int8_model;
  other.layers[1].weight[3] = static_cast<std::int8_t>(other.layers[1].weight[3] == 5 ? 6 : 5);
  seatorch::npu::write_npu_hex(dir / "other.hex", seatorch::npu::build_npu_image(other));
  options.model = dir / "model.int8.safetensors";
  options.hex = dir / "other.hex";
  seatorch::test::check_input_error(
      [&] { seatorch::predict::run_predict(options); },
      ".*other\\.hex was not exported from .*model\\.int8\\.safetensors \\(layer 1's weights differ\\): export it "
      "with `seatorch export --hex --model .*model\\.int8\\.safetensors`");

  // Another architecture, beside the float model (whose integers it cannot be compared with).
  q::Int8Model shorter = models.int8_model;
  shorter.layers.pop_back();
  seatorch::npu::write_npu_hex(dir / "shorter.hex", seatorch::npu::build_npu_image(shorter));
  options.model = dir / "model.safetensors";
  options.hex = dir / "shorter.hex";
  seatorch::test::check_input_error([&] { seatorch::predict::run_predict(options); },
                                    ".*shorter\\.hex holds a " + shorter.architecture() +
                                        " model but .*model\\.safetensors is " + models.int8_model.architecture() +
                                        ": export the \\.hex from this model");
}
