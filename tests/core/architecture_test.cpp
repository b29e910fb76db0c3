// architecture_name, and the model types that name themselves with it.
#include "seatorch/core/architecture.hpp"

#include "seatorch/model/float_mlp.hpp"
#include "seatorch/quant/int8_model.hpp"

#include <catch2/catch.hpp>

#include <vector>

namespace core = seatorch::core;

TEST_CASE("architecture_name joins the layer sizes with dashes", "[core]") {
  CHECK(core::architecture_name(std::vector<std::size_t>{784, 256, 128, 10}) == "784-256-128-10");
  CHECK(core::architecture_name(std::vector<std::size_t>{2, 2}) == "2-2");
  CHECK(core::architecture_name(std::vector<std::size_t>{7}) == "7");
  CHECK(core::architecture_name({}).empty());

  seatorch::model::FloatMlp float_mlp;
  float_mlp.layers = {{784, 128, {}, {}, true}, {128, 10, {}, {}, false}};
  CHECK(float_mlp.architecture() == "784-128-10");
  seatorch::quant::Int8Model int8;
  int8.layers.resize(2);
  int8.layers[0].in = 784;
  int8.layers[0].out = 128;
  int8.layers[1].in = 128;
  int8.layers[1].out = 10;
  CHECK(int8.architecture() == "784-128-10");
}
