// Random quantized models and images for the NPU tests, with realistic ranges: multipliers
// from quantize_multiplier() of reals in (1e-4, 0.5) chosen so that outputs spread over the
// int8 range instead of saturating, weights mostly small with some extremes, MNIST-like
// images (mostly 0, some 255); and NPU_TEST_EACH_TARGET(), which runs a test case once per
// NPU target.
#pragma once

#include "seatorch/npu/target.hpp"

#include "seatorch/core/rng.hpp"
#include "seatorch/kernels/fixed_point.hpp"
#include "seatorch/quant/int8_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

// In a TEST_CASE: the NPU target of this run; Catch2 runs the case once per target
// (a macro because GENERATE must stand in the test case's own body).
#define NPU_TEST_EACH_TARGET() \
  ::seatorch::npu::npu_target(GENERATE(Catch::Generators::from_range(::seatorch::npu::npu_target_names())))

namespace seatorch::npu::test {

inline std::int32_t uniform_int(core::Rng& rng, std::int32_t lo, std::int32_t hi) {
  return lo + static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(hi - lo + 1)));
}

// sizes = {in, hidden..., out}; hidden layers use ReLU, the last does not.
inline quant::Int8Model random_model(core::Rng& rng, const std::vector<std::size_t>& sizes) {
  quant::Int8Model model;
  std::int32_t input_zero_point = -128;  // the first layer sees p - 128 with zero-point -128
  for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
    quant::Int8Layer layer;
    layer.in = sizes[l];
    layer.out = sizes[l + 1];
    layer.relu = l + 2 < sizes.size();
    layer.input_zero_point = input_zero_point;
    layer.weight_zero_point = rng.below(3) == 0 ? uniform_int(rng, -20, 20) : 0;
    layer.output_zero_point = layer.relu ? -128 : uniform_int(rng, -30, 30);
    for (std::size_t n = 0; n < layer.in * layer.out; ++n) {
      const bool extreme = rng.below(100) == 0;
      layer.weight.push_back(
          static_cast<std::int8_t>(extreme ? (rng.below(2) ? 127 : -128) : uniform_int(rng, -50, 50)));
    }
    // typical |acc|: sqrt(in) * E|x - z_x| * E|w - z_w|; map about 3 of those onto 127
    const double typical = std::sqrt(static_cast<double>(layer.in)) * 80.0 * 30.0;
    for (std::size_t j = 0; j < layer.out; ++j) {
      layer.bias.push_back(uniform_int(rng, -20000, 20000));
      const double real = std::clamp(127.0 / (3.0 * typical) * rng.uniform(0.5, 2.0), 1.1e-4, 0.49);
      const kernels::QuantizedMultiplier m = kernels::quantize_multiplier(real);
      layer.multiplier.push_back(m.multiplier);
      layer.shift.push_back(m.shift);
    }
    input_zero_point = layer.output_zero_point;
    model.layers.push_back(std::move(layer));
  }
  return model;
}

inline std::vector<std::uint8_t> random_image(core::Rng& rng, std::size_t size) {
  std::vector<std::uint8_t> image(size);
  for (std::uint8_t& p : image) {
    const std::uint64_t kind = rng.below(10);
    p = kind < 6 ? 0 : kind < 8 ? 255 : static_cast<std::uint8_t>(rng.below(256));
  }
  return image;
}

}  // namespace seatorch::npu::test
