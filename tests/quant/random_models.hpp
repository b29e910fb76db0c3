// Seeded random models and data shared by the quantization tests.
#pragma once

#include "seatorch/core/rng.hpp"
#include "seatorch/kernels/fixed_point.hpp"
#include "seatorch/model/float_mlp.hpp"
#include "seatorch/quant/int8_model.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace seatorch::test {

// A ReLU MLP with PyTorch-like uniform(-1/sqrt(in), 1/sqrt(in)) weights and biases.
inline model::FloatMlp random_float_mlp(const std::vector<std::size_t>& sizes, core::Rng& rng) {
  model::FloatMlp model;
  for (std::size_t k = 0; k + 1 < sizes.size(); ++k) {
    model::DenseLayer layer;
    layer.in = sizes[k];
    layer.out = sizes[k + 1];
    const double bound = 1.0 / std::sqrt(static_cast<double>(layer.in));
    for (std::size_t i = 0; i < layer.in * layer.out; ++i)
      layer.weight.push_back(static_cast<float>(rng.uniform(-bound, bound)));
    for (std::size_t j = 0; j < layer.out; ++j) layer.bias.push_back(static_cast<float>(rng.uniform(-bound, bound)));
    layer.relu = k + 2 < sizes.size();
    model.layers.push_back(std::move(layer));
  }
  return model;
}

// Image-like bytes: mostly 0 with bright strokes, like MNIST, including 255.
inline std::vector<std::uint8_t> random_pixels(std::size_t n, std::size_t features, core::Rng& rng) {
  std::vector<std::uint8_t> pixels(n * features);
  for (auto& p : pixels) {
    const std::uint64_t r = rng.below(10);
    p = r < 6 ? 0 : r < 8 ? 255 : static_cast<std::uint8_t>(rng.below(256));
  }
  return pixels;
}

inline std::int8_t random_i8(core::Rng& rng, bool extremes) {
  if (extremes) return rng.below(2) ? std::int8_t{127} : std::int8_t{-128};
  return static_cast<std::int8_t>(static_cast<int>(rng.below(256)) - 128);
}

// A valid Int8Model with arbitrary parameters; `extremes` puts every int8 value and
// zero-point at the ends of its range.
inline quant::Int8Model random_int8_model(const std::vector<std::size_t>& sizes, core::Rng& rng, bool extremes) {
  quant::Int8Model model;
  std::int32_t z_in = -128;
  for (std::size_t k = 0; k + 1 < sizes.size(); ++k) {
    quant::Int8Layer l;
    l.in = sizes[k];
    l.out = sizes[k + 1];
    for (std::size_t i = 0; i < l.in * l.out; ++i) l.weight.push_back(random_i8(rng, extremes));
    for (std::size_t j = 0; j < l.out; ++j) {
      l.bias.push_back(static_cast<std::int32_t>(rng.below(400001)) - 200000);
      // Scale ratios that keep outputs in range for these sizes, plus a few extreme ones.
      const double real = rng.below(8) == 0 ? rng.uniform(0.5, 0.98) : std::pow(2.0, -rng.uniform(8.0, 20.0));
      const kernels::QuantizedMultiplier m = kernels::quantize_multiplier(real);
      l.multiplier.push_back(m.multiplier);
      l.shift.push_back(m.shift);
    }
    l.input_zero_point = z_in;
    l.weight_zero_point = extremes ? (rng.below(2) ? 127 : -128) : random_i8(rng, false);
    l.output_zero_point = extremes ? (rng.below(2) ? 127 : -128) : random_i8(rng, false);
    l.relu = rng.below(2) == 1;
    l.input_scale = 1.0;
    l.output_scale = 1.0;
    l.weight_scale = {1.0};
    z_in = l.output_zero_point;
    model.layers.push_back(std::move(l));
  }
  return model;
}

}  // namespace seatorch::test
