// The int8 model file: an identical round trip, its tensor names and metadata, wrong-kind
// files and broken invariants as clear errors.
#include "seatorch/quant/int8_file.hpp"

#include "../scratch_dir.hpp"
#include "random_models.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/kernels/int8_kernels.hpp"
#include "seatorch/model/float_checkpoint.hpp"
#include "seatorch/quant/int8_engine.hpp"
#include "seatorch/quant/quantizer.hpp"

#include <catch2/catch.hpp>

#include <limits>

namespace q = seatorch::quant;
namespace io = seatorch::io;

namespace {

void require_same(const q::Int8Model& a, const q::Int8Model& b) {
  REQUIRE(a.layers.size() == b.layers.size());
  for (std::size_t k = 0; k < a.layers.size(); ++k) {
    const q::Int8Layer& x = a.layers[k];
    const q::Int8Layer& y = b.layers[k];
    INFO("layer " << k);
    CHECK(x.in == y.in);
    CHECK(x.out == y.out);
    CHECK(x.weight == y.weight);
    CHECK(x.bias == y.bias);
    CHECK(x.multiplier == y.multiplier);
    CHECK(x.shift == y.shift);
    CHECK(x.input_zero_point == y.input_zero_point);
    CHECK(x.weight_zero_point == y.weight_zero_point);
    CHECK(x.output_zero_point == y.output_zero_point);
    CHECK(x.relu == y.relu);
    CHECK(x.input_scale == y.input_scale);
    CHECK(x.weight_scale == y.weight_scale);
    CHECK(x.output_scale == y.output_scale);
  }
}

q::QuantizedMlp quantized_model(q::Granularity g) {
  seatorch::core::Rng rng(6);
  const seatorch::model::FloatMlp model = seatorch::test::random_float_mlp({20, 9, 4}, rng);
  q::QuantizeOptions options;
  options.granularity = g;
  return q::quantize_mlp(model, seatorch::test::random_pixels(50, 20, rng), 50, options);
}

}  // namespace

TEST_CASE("int8 models save and load back identical", "[quant]") {
  const seatorch::test::ScratchDir dir;
  for (q::Granularity g : {q::Granularity::kTensor, q::Granularity::kChannel}) {
    const q::QuantizedMlp quantized = quantized_model(g);
    auto metadata = quantized.metadata;
    metadata["dataset"] = "mnist";
    q::save_int8_model(dir / "model.int8.safetensors", quantized.model, metadata);
    const q::Int8ModelFile back = q::load_int8_model(dir / "model.int8.safetensors");
    require_same(quantized.model, back.model);
    CHECK(back.metadata.at("format") == "seatorch-int8");
    CHECK(back.metadata.at("format_version") == "1");
    CHECK(back.metadata.at("architecture") == "20-9-4");
    CHECK(back.metadata.at("granularity") == q::granularity_name(g));
    CHECK(back.metadata.at("calibration") == "minmax");
    CHECK(back.metadata.at("dataset") == "mnist");
    const io::SafetensorsFile raw = io::load_safetensors(dir / "model.int8.safetensors");
    CHECK(raw.tensors.at("layers.0.weight").dtype == seatorch::core::DType::kI8);
    CHECK(raw.tensors.at("layers.1.bias").dtype == seatorch::core::DType::kI32);
    CHECK(raw.tensors.at("layers.1.multiplier").shape == std::vector<std::size_t>{4});
    CHECK(raw.tensors.at("layers.0.weight_scale").shape ==
          std::vector<std::size_t>{g == q::Granularity::kTensor ? 1u : 9u});
    CHECK(raw.tensors.at("layers.0.output_zero_point").shape.empty());
    CHECK(raw.tensors.size() == 22);
  }
}

TEST_CASE("wrong-kind and broken int8 files are clear errors", "[quant]") {
  const q::QuantizedMlp quantized = quantized_model(q::Granularity::kTensor);
  io::SafetensorsFile file = q::int8_model_file(quantized.model, quantized.metadata);
  auto require_error = [&](const std::string& needle) {
    CHECK_THROWS_WITH(q::int8_model_from_file(file, "m.safetensors"),
                      Catch::Contains("m.safetensors") && Catch::Contains(needle));
  };
  SECTION("a float checkpoint") {
    seatorch::core::Rng rng(1);
    file = seatorch::model::float_checkpoint(seatorch::test::random_float_mlp({4, 3}, rng));
    require_error("is a float checkpoint");
  }
  SECTION("no format") {
    file.metadata.clear();
    require_error("without seatorch metadata");
  }
  SECTION("a newer version") {
    file.metadata.insert_or_assign("format_version", std::string(1, '2'));  // not = "2": GCC 12 -Wrestrict misfires
    require_error("version '2'");
  }
  SECTION("a shift out of range") {
    file.tensors["layers.1.shift"] = io::make_tensor<std::int32_t>({4}, std::vector<std::int32_t>{3, 40, 3, 3});
    require_error("layers.1.shift[1] = 40");
  }
  SECTION("a multiplier below 2^30") {
    file.tensors["layers.0.multiplier"] = io::make_tensor<std::int32_t>({9}, std::vector<std::int32_t>(9, 5));
    require_error("layers.0.multiplier[0]");
  }
  SECTION("zero-points that do not chain") {
    const std::int32_t z = 17;
    file.tensors["layers.1.input_zero_point"] = io::make_tensor<std::int32_t>({}, std::span(&z, 1));
    require_error("differ");
  }
  SECTION("a missing tensor") {
    file.tensors.erase("layers.1.relu");
    require_error("no tensor 'layers.1.relu'");
  }
  SECTION("an extra tensor") {
    file.tensors["layers.7.weight_extra"] = file.tensors["layers.0.bias"];
    require_error("unexpected tensor");
  }
  SECTION("a wrong dtype") {
    file.tensors["layers.0.bias"] = io::make_tensor<float>({9}, std::vector<float>(9, 0.0f));
    require_error("dtype F32, expected I32");
  }
}

TEST_CASE("int8 model biases leave room for the accumulator and the requantization sum", "[quant]") {
  // One input, one output at every bound at once: pixel 255 makes the product 255 * 255,
  // M = 2^31 - 1 and shift 0 keep srdhm(acc, M) = acc - 1, and z_y = 127 is added to that.
  const auto model = [](std::int32_t bias) {
    q::Int8Layer l;
    l.in = 1;
    l.out = 1;
    l.weight = {127};
    l.bias = {bias};
    l.multiplier = {std::numeric_limits<std::int32_t>::max()};
    l.shift = {0};
    l.input_zero_point = -128;
    l.weight_zero_point = -128;
    l.output_zero_point = 127;
    l.input_scale = 1.0 / 255.0;
    l.weight_scale = {0.01};
    l.output_scale = 0.1;
    return q::Int8Model{{l}};
  };
  const std::int32_t limit = std::numeric_limits<std::int32_t>::max() - 255 * 255 - 255;
  CHECK_THROWS_WITH(q::validate_int8_model(model(limit + 1), "m"), Catch::Contains("could overflow"));
  CHECK_THROWS_WITH(q::validate_int8_model(model(-limit - 1), "m"), Catch::Contains("could overflow"));
  const q::Int8Model top = model(limit);
  q::validate_int8_model(top, "m");
  // The reference saturates to 127; every kernel must agree (their int32 sum cannot wrap).
  const std::vector<std::uint8_t> bright{255};
  REQUIRE(q::int8_forward_ref(top, bright) == std::vector<std::int8_t>{127});
  for (const std::string& name : seatorch::kernels::int8_kernel_names()) {
    std::vector<std::int8_t> logits(1);
    q::Int8Engine(top, name).forward(bright, 1, logits);
    INFO("kernel " << name);
    CHECK(logits == std::vector<std::int8_t>{127});
  }
}

TEST_CASE("the inference rules hold for every valid int8 model and allow what the NPU runs", "[quant]") {
  // validate_int8_model's bias bound implies validate_int8_inference's exact accumulator
  // rule, so a quantized model passes both.
  const q::QuantizedMlp quantized = quantized_model(q::Granularity::kChannel);
  CHECK_NOTHROW(q::validate_int8_model(quantized.model, "m"));
  CHECK_NOTHROW(q::validate_int8_inference(quantized.model, "m"));

  // Without scales, with a negative multiplier and a bias that only the exact rule allows
  // (every weight equals z_w: the products are 0): an inference model, not a quantized one.
  q::Int8Layer l;
  l.in = 2;
  l.out = 1;
  l.weight = {5, 5};
  l.bias = {std::numeric_limits<std::int32_t>::min()};
  l.multiplier = {-7};
  l.shift = {31};
  l.input_zero_point = -128;
  l.weight_zero_point = 5;
  const q::Int8Model bare{{l}};
  CHECK_NOTHROW(q::validate_int8_inference(bare, "m"));
  CHECK_THROWS_WITH(q::validate_int8_model(bare, "m"), Catch::Contains("m: layer 0 has 0 weight scales"));

  // Both levels share the shape, zero-point and shift rules, and their messages.
  q::Int8Model bad = quantized.model;
  bad.layers[1].shift[2] = 32;
  for (const auto& validate : {&q::validate_int8_model, &q::validate_int8_inference}) {
    CHECK_THROWS_WITH(validate(bad, "m"), "m: layers.1.shift[2] = 32 is outside [0, 31]");
  }
  bad = quantized.model;
  bad.layers[1].in = 8;
  for (const auto& validate : {&q::validate_int8_model, &q::validate_int8_inference}) {
    CHECK_THROWS_WITH(validate(bad, "m"), "m: layer 1 has 8 inputs but layer 0 has 9 outputs; the layers must chain");
  }
  bad = quantized.model;
  bad.layers[0].bias.pop_back();
  for (const auto& validate : {&q::validate_int8_model, &q::validate_int8_inference}) {
    CHECK_THROWS_WITH(validate(bad, "m"), Catch::Contains("m: layer 0: expected 180 weights and 9 biases"));
  }
  CHECK_THROWS_WITH(q::validate_int8_inference(q::Int8Model{}, "m"), "m: the int8 model has no layers");

  // The exact rule: one step past INT32_MAX at x = 127 with weights 127 and z_w = 0.
  l.weight = {127, 127};
  l.weight_zero_point = 0;
  l.bias = {std::numeric_limits<std::int32_t>::max() - 2 * 255 * 127 + 1};
  CHECK_THROWS_WITH(q::validate_int8_inference(q::Int8Model{{l}}, "m"),
                    Catch::StartsWith("m: layer 0 row 0: bias 2147418878") && Catch::Contains("2147483648]"));
}
