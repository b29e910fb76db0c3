// Pixel bytes to the floats a float model reads: pixel_value(p) = p / kPixelMax (the one place
// a pixel's 255 is written; the warp kernels and the quantizer's input scale use it too), and
// its loop over a span, which every batch of training and evaluation runs through
// (Dataset::copy_features).
//
// pixel_values_ref() is the specification: an IEEE division on every element. pixel_values()
// runs the fastest build this CPU has: on x86 with AVX2 and FMA, p * (1/255) corrected by two
// fused multiply-adds, which for the 256 byte values gives the division's bits (tested against
// the definition for every byte value, in every lane). Why it matters: the divider takes 4-5
// cycles a vector, and divisions bounded the batch gather (DECISIONS 100).
// Deliberately not here: which rows to convert (data::Dataset), normalisation beyond / 255.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace seatorch::kernels {

// The largest pixel byte, which a model sees as 1.
inline constexpr float kPixelMax = 255.0f;

// The float a model sees for pixel byte p.
constexpr float pixel_value(std::uint8_t p) { return static_cast<float>(p) / kPixelMax; }

// out[i] = pixel_value(pixels[i]); the spans have the same size.
void pixel_values_ref(std::span<const std::uint8_t> pixels, std::span<float> out);
void pixel_values(std::span<const std::uint8_t> pixels, std::span<float> out);

struct PixelKernel {
  std::string_view name;  // "ref", "avx2"
  void (*run)(std::span<const std::uint8_t> pixels, std::span<float> out);
};

// The builds this CPU can run, the reference first and the one pixel_values() runs last.
std::span<const PixelKernel> pixel_kernels();

}  // namespace seatorch::kernels
