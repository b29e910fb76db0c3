// The scalar trainer end to end: XOR to 100%, moons to >= 97%, and determinism.
#include "seatorch/core/error.hpp"
#include "seatorch/data/registry.hpp"
#include "seatorch/train/scalar_trainer.hpp"

#include <catch2/catch.hpp>

TEST_CASE("XOR reaches 100% with the default recipe for several seeds", "[train]") {
  const seatorch::data::DataSplit data = seatorch::data::load_dataset("xor");
  for (std::uint64_t seed : {0, 1, 2, 3, 4}) {
    seatorch::train::ScalarTrainConfig config = seatorch::train::default_scalar_config("xor");
    config.seed = seed;
    const seatorch::train::ScalarTrainResult result = seatorch::train::train_scalar(data, config);
    INFO("seed " << seed << ": accuracy " << result.train_accuracy << ", loss " << result.final_loss);
    CHECK(result.train_accuracy == 1.0);
    CHECK(result.final_loss < 0.1);
    CHECK(result.steps == config.epochs);
  }
}

TEST_CASE("moons reaches >= 97% training accuracy", "[train]") {
  const seatorch::data::DataSplit data = seatorch::data::load_dataset("moons");
  const seatorch::train::ScalarTrainResult result =
      seatorch::train::train_scalar(data, seatorch::train::default_scalar_config("moons"));
  INFO("train accuracy " << result.train_accuracy << ", test accuracy " << result.test.accuracy());
  CHECK(result.train_accuracy >= 0.97);
  CHECK(result.test.accuracy() >= 0.95);
}

TEST_CASE("the same seed gives bit-identical training and another seed does not", "[train]") {
  const seatorch::data::DataSplit data = seatorch::data::load_dataset("moons");
  seatorch::train::ScalarTrainConfig config = seatorch::train::default_scalar_config("moons");
  config.epochs = 5;
  config.batch = 16;
  const auto a = seatorch::train::train_scalar(data, config);
  const auto b = seatorch::train::train_scalar(data, config);
  config.seed = 99;
  const auto c = seatorch::train::train_scalar(data, config);
  REQUIRE(a.history.size() == b.history.size());
  for (std::size_t e = 0; e < a.history.size(); ++e) {
    INFO("epoch " << e + 1 << ": " << a.history[e].loss << " vs " << b.history[e].loss);
    CHECK(a.history[e].loss == b.history[e].loss);
  }
  CHECK(a.final_loss != c.final_loss);
}

TEST_CASE("bad training configurations are input errors", "[train]") {
  const seatorch::data::DataSplit data = seatorch::data::load_dataset("xor");
  seatorch::train::ScalarTrainConfig config = seatorch::train::default_scalar_config("xor");
  config.epochs = 0;
  CHECK_THROWS_AS(seatorch::train::train_scalar(data, config), seatorch::core::InputError);
  CHECK_THROWS_AS(seatorch::data::load_dataset("imagenet"), seatorch::core::InputError);
}
