// Float checkpoints: nn.Sequential names and shapes, round trip, and every bad checkpoint
// (NaN, shapes, names, dtypes, an int8 file) a clear InputError.
#include "seatorch/model/float_checkpoint.hpp"

#include "../quant/random_models.hpp"
#include "../scratch_dir.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/quant/int8_file.hpp"
#include "seatorch/quant/quantizer.hpp"

#include <catch2/catch.hpp>

#include <limits>

namespace q = seatorch::quant;
namespace io = seatorch::io;

TEST_CASE("float checkpoints use PyTorch nn.Sequential names and round trip", "[quant]") {
  seatorch::core::Rng rng(3);
  const seatorch::model::FloatMlp model = seatorch::test::random_float_mlp({12, 7, 5, 3}, rng);
  const io::SafetensorsFile file =
      seatorch::model::float_checkpoint(model, {{"dataset", "mnist"}, {"format", "ignored"}});
  CHECK(file.metadata.at("format") == "pt");
  CHECK(file.metadata.at("architecture") == "12-7-5-3");
  CHECK(file.metadata.at("dataset") == "mnist");
  CHECK(file.tensors.at("0.weight").shape == std::vector<std::size_t>{7, 12});
  CHECK(file.tensors.at("2.bias").shape == std::vector<std::size_t>{5});
  CHECK(file.tensors.at("4.weight").shape == std::vector<std::size_t>{3, 5});
  CHECK(file.tensors.size() == 6);

  const seatorch::test::ScratchDir dir;
  const auto path = dir / "model.safetensors";
  seatorch::model::save_float_checkpoint(path, model, {{"dataset", "mnist"}});
  const seatorch::model::FloatMlp back = seatorch::model::load_float_checkpoint(path);
  REQUIRE(back.layers.size() == model.layers.size());
  for (std::size_t k = 0; k < model.layers.size(); ++k) {
    CHECK(back.layers[k].weight == model.layers[k].weight);
    CHECK(back.layers[k].bias == model.layers[k].bias);
    CHECK(back.layers[k].relu == model.layers[k].relu);
  }
}

TEST_CASE("bad float checkpoints are clear errors", "[quant]") {
  seatorch::core::Rng rng(4);
  const seatorch::model::FloatMlp model = seatorch::test::random_float_mlp({6, 4, 2}, rng);
  io::SafetensorsFile file = seatorch::model::float_checkpoint(model);
  auto require_error = [&](const std::string& needle) {
    CHECK_THROWS_WITH(seatorch::model::float_mlp_from_checkpoint(file, "ckpt.safetensors"),
                      Catch::Contains("ckpt.safetensors") && Catch::Contains(needle));
  };
  SECTION("NaN names the tensor") {
    std::vector<float> b = model.layers[1].bias;
    b[1] = std::numeric_limits<float>::quiet_NaN();
    file.tensors["2.bias"] = io::make_tensor<float>({2}, b);
    require_error("2.bias");
  }
  SECTION("Inf names the tensor") {
    std::vector<float> w = model.layers[0].weight;
    w[5] = -std::numeric_limits<float>::infinity();
    file.tensors["0.weight"] = io::make_tensor<float>({4, 6}, w);
    require_error("0.weight");
  }
  SECTION("shapes that do not chain") {
    file.tensors["2.weight"] = io::make_tensor<float>({2, 3}, std::vector<float>(6, 0.1f));
    require_error("do not chain");
  }
  SECTION("bias that does not match") {
    file.tensors["0.bias"] = io::make_tensor<float>({3}, std::vector<float>(3, 0.0f));
    require_error("0.bias");
  }
  SECTION("a ReLU position holding parameters") {
    file.tensors["1.weight"] = file.tensors["0.weight"];
    require_error("unexpected tensor '1.weight'");
  }
  SECTION("a missing layer") {
    file.tensors["6.weight"] = file.tensors["2.weight"];
    file.tensors["6.bias"] = file.tensors["2.bias"];
    require_error("no tensor '4.weight'");
  }
  SECTION("int weights") {
    file.tensors["0.weight"] = io::make_tensor<std::int32_t>({4, 6}, std::vector<std::int32_t>(24, 1));
    require_error("dtype I32, expected F32");
  }
  SECTION("another activation") {
    file.metadata["activation"] = "tanh";
    require_error("ReLU");
  }
  SECTION("an int8 model given as a float checkpoint") {
    const std::vector<std::uint8_t> pixels = seatorch::test::random_pixels(5, 6, rng);
    file = q::int8_model_file(q::quantize_mlp(model, pixels, 5, {}).model);
    require_error("is an int8 model");
  }
  SECTION("empty") {
    file.tensors.clear();
    require_error("no tensors");
  }
}
