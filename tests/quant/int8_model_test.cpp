// The integer reference layer against an independent int64 / long double evaluation of
// the same equations, including the extremes of every range.
#include "seatorch/quant/int8_model.hpp"

#include "seatorch/kernels/fixed_point.hpp"
#include "seatorch/core/rng.hpp"

#include <catch2/catch.hpp>

#include <cmath>

namespace q = seatorch::quant;

TEST_CASE("int8_layer_ref computes the documented equations", "[quant]") {
  seatorch::core::Rng rng(21);
  for (int trial = 0; trial < 50; ++trial) {
    q::Int8Layer layer;
    layer.in = 1 + rng.below(40);
    layer.out = 1 + rng.below(12);
    const bool extremes = trial % 5 == 0;
    auto i8 = [&] { return static_cast<std::int8_t>(extremes ? (rng.below(2) ? 127 : -128) : static_cast<int>(rng.below(256)) - 128); };
    for (std::size_t i = 0; i < layer.in * layer.out; ++i) layer.weight.push_back(i8());
    for (std::size_t j = 0; j < layer.out; ++j) {
      layer.bias.push_back(static_cast<std::int32_t>(rng.below(200001)) - 100000);
      const seatorch::kernels::QuantizedMultiplier m = seatorch::kernels::quantize_multiplier(rng.uniform(1e-4, 0.99));
      layer.multiplier.push_back(m.multiplier);
      layer.shift.push_back(m.shift);
    }
    layer.input_zero_point = extremes ? -128 : static_cast<std::int32_t>(rng.below(256)) - 128;
    layer.weight_zero_point = extremes ? 127 : static_cast<std::int32_t>(rng.below(256)) - 128;
    layer.output_zero_point = static_cast<std::int32_t>(rng.below(256)) - 128;
    layer.relu = rng.below(2) == 1;
    std::vector<std::int8_t> x(layer.in);
    for (auto& v : x) v = i8();

    std::vector<std::int8_t> y(layer.out);
    std::vector<std::int32_t> acc(layer.out);
    q::int8_layer_ref(layer, x, y, acc);
    for (std::size_t j = 0; j < layer.out; ++j) {
      std::int64_t expected_acc = layer.bias[j];
      for (std::size_t i = 0; i < layer.in; ++i) {
        expected_acc += (std::int64_t{x[i]} - layer.input_zero_point) *
                        (std::int64_t{layer.weight[j * layer.in + i]} - layer.weight_zero_point);
      }
      // acc * M * 2^-31 * 2^-shift, rounded half away from zero twice as the spec says.
      const long double scaled = std::ldexp(static_cast<long double>(expected_acc) * layer.multiplier[j], -31);
      const long double once = std::round(scaled);
      const long double twice = std::round(std::ldexp(once, -layer.shift[j]));
      long double expected = layer.output_zero_point + twice;
      expected = std::min<long double>(127, std::max<long double>(layer.relu ? layer.output_zero_point : -128, expected));
      INFO("trial " << trial << " row " << j << ": acc " << acc[j] << " vs " << expected_acc << ", y "
                    << int{y[j]} << " vs " << static_cast<double>(expected));
      REQUIRE(acc[j] == expected_acc);
      REQUIRE(y[j] == static_cast<int>(expected));
    }
  }
}

TEST_CASE("argmax_int8 picks the lowest index on ties", "[quant]") {
  const std::vector<std::int8_t> logits{-5, 7, 7, -128};
  CHECK(q::argmax_int8(logits) == 1);
}
