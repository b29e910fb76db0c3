// The integer reference layer against an independent exact-integer evaluation of the same
// equations (docs/QUANTIZATION.md section 3), including the extremes of every range and
// hand-picked exact ties of both roundings.
#include "seatorch/quant/int8_model.hpp"

#include "seatorch/core/argmax.hpp"
#include "seatorch/core/rng.hpp"
#include "seatorch/kernels/fixed_point.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

namespace q = seatorch::quant;

namespace {

// floor(num / den) for den > 0 (C++ division truncates toward zero).
std::int64_t floor_div(std::int64_t num, std::int64_t den) {
  const std::int64_t t = num / den;
  return (num % den != 0 && num < 0) ? t - 1 : t;
}

// y = clamp(z_y + r, lo, 127) with, as the specification says,
//   h = acc * M / 2^31 rounded to nearest, exact ties toward +infinity: floor(acc * M / 2^31 + 1/2)
//   r = h / 2^shift rounded to nearest, exact ties away from zero
// in int64, exactly: |acc * M| < 2^62 (acc = M = INT32_MIN, which saturates, is not an
// accumulator a valid layer can produce).
std::int64_t expected_output(std::int64_t acc, std::int32_t multiplier, std::int32_t shift, std::int32_t z_y,
                             bool relu) {
  const std::int64_t h = floor_div(2 * acc * multiplier + (std::int64_t{1} << 31), std::int64_t{1} << 32);
  const std::int64_t mag = h < 0 ? -h : h;
  const std::int64_t r_mag = floor_div(2 * mag + (std::int64_t{1} << shift), std::int64_t{1} << (shift + 1));
  const std::int64_t r = h < 0 ? -r_mag : r_mag;
  return std::clamp<std::int64_t>(z_y + r, relu ? z_y : -128, 127);
}

// int8_layer_ref's output for one row whose accumulator is exactly `acc` (one input, equal
// to its zero-point, so acc = bias).
int layer_output(std::int32_t acc, std::int32_t multiplier, std::int32_t shift, std::int32_t z_y) {
  q::Int8Layer layer;
  layer.in = 1;
  layer.out = 1;
  layer.weight = {0};
  layer.bias = {acc};
  layer.multiplier = {multiplier};
  layer.shift = {shift};
  layer.output_zero_point = z_y;
  const std::vector<std::int8_t> x{0};
  std::vector<std::int8_t> y(1);
  std::vector<std::int32_t> accumulators(1);
  q::int8_layer_ref(layer, x, y, accumulators);
  REQUIRE(accumulators[0] == acc);
  return y[0];
}

}  // namespace

TEST_CASE("int8_layer_ref computes the documented equations", "[quant]") {
  seatorch::core::Rng rng(21);
  for (int trial = 0; trial < 50; ++trial) {
    q::Int8Layer layer;
    layer.in = 1 + rng.below(40);
    layer.out = 1 + rng.below(12);
    const bool extremes = trial % 5 == 0;
    auto i8 = [&] {
      return static_cast<std::int8_t>(extremes ? (rng.below(2) ? 127 : -128) : static_cast<int>(rng.below(256)) - 128);
    };
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
      const std::int64_t expected =
          expected_output(expected_acc, layer.multiplier[j], layer.shift[j], layer.output_zero_point, layer.relu);
      INFO("trial " << trial << " row " << j << ": acc " << acc[j] << " vs " << expected_acc << ", y " << int{y[j]}
                    << " vs " << expected);
      REQUIRE(acc[j] == expected_acc);
      REQUIRE(y[j] == expected);
    }
  }
}

TEST_CASE("int8_layer_ref rounds exact ties as specified", "[quant]") {
  // M = 2^30 halves the accumulator exactly in srdhm, whose ties go toward +infinity; the
  // rounding shift's ties go away from zero. Ties away from zero in srdhm (std::round) would
  // get every negative srdhm tie wrong, ties toward +infinity in the shift every negative
  // shift tie. Each row worked by hand; the oracle must agree with it and the layer with both.
  constexpr std::int32_t kHalf = 1 << 30;
  struct Tie {
    std::int32_t acc, multiplier, shift, z_y;
    int y;
    const char* what;
  };
  const Tie ties[] = {
      {-1, kHalf, 0, 0, 0, "srdhm -0.5 -> 0"},
      {-3, kHalf, 0, 0, -1, "srdhm -1.5 -> -1"},
      {-5, kHalf, 0, 10, 8, "srdhm -2.5 -> -2"},
      {1, kHalf, 0, 0, 1, "srdhm 0.5 -> 1"},
      {3, kHalf, 0, 0, 2, "srdhm 1.5 -> 2"},
      {-404, 3 << 28, 0, 100, -51, "srdhm -404 * 3 / 8 = -151.5 -> -151"},
      {-10, kHalf, 1, 0, -3, "srdhm -5 exactly, shift -2.5 -> -3"},
      {-2, kHalf, 1, 0, -1, "srdhm -1, shift -0.5 -> -1"},
      {10, kHalf, 1, 0, 3, "srdhm 5, shift 2.5 -> 3"},
      {-24, kHalf, 3, 0, -2, "srdhm -12, shift -1.5 -> -2"},
      {-13, kHalf, 2, 0, -2, "srdhm -6.5 -> -6, shift -1.5 -> -2"},
  };
  for (const Tie& t : ties) {
    INFO(t.what);
    CHECK(expected_output(t.acc, t.multiplier, t.shift, t.z_y, false) == t.y);
    CHECK(layer_output(t.acc, t.multiplier, t.shift, t.z_y) == t.y);
  }
  // Random ties of srdhm (odd accumulators halved) and of the shift (h = odd * 2^(shift - 1)).
  seatorch::core::Rng rng(22);
  for (int i = 0; i < 2000; ++i) {
    const std::int32_t shift = static_cast<std::int32_t>(rng.below(8));
    const std::int32_t odd = 2 * static_cast<std::int32_t>(rng.below(1 << 12)) - (1 << 12) + 1;
    const std::int32_t acc = i % 2 ? odd : odd * (1 << shift);  // h = odd / 2, or h / 2^shift = odd / 2
    const std::int32_t z_y = static_cast<std::int32_t>(rng.below(256)) - 128;
    INFO("acc " << acc << ", shift " << shift << ", z_y " << z_y);
    REQUIRE(layer_output(acc, kHalf, shift, z_y) == expected_output(acc, kHalf, shift, z_y, false));
  }
}

TEST_CASE("core::argmax picks the lowest index of int8 logits on ties", "[quant]") {
  const std::vector<std::int8_t> logits{-5, 7, 7, -128};
  CHECK(seatorch::core::argmax(logits) == 1);
}
