// The loops of kernels/pixel_values.hpp, written once and compiled once per ISA: the division
// by pixel_values.cpp for the reference, the product corrected by fused multiply-adds by
// x86/pixel_values_avx2.cpp with -mavx2 -mfma. They have internal linkage (the unnamed
// namespace) and call no library function (the FMA is the builtin), so no copy built with one
// file's ISA flags can be picked by the linker for a CPU without that ISA.
#pragma once

#include "seatorch/kernels/pixel_values.hpp"

#include <cassert>

namespace seatorch::kernels {

#if defined(__x86_64__)
// src/kernels/x86/pixel_values_avx2.cpp: the corrected product built for AVX2 CPUs with FMA.
void pixel_values_avx2(std::span<const std::uint8_t> pixels, std::span<float> out);
#endif

namespace {

inline void pixel_loop(std::span<const std::uint8_t> pixels, std::span<float> out) {
  assert(pixels.size() == out.size());
  const std::uint8_t* p = pixels.data();
  float* o = out.data();
  for (std::size_t i = 0; i < out.size(); ++i) o[i] = pixel_value(p[i]);
}

// p / 255 (pixel_value's kPixelMax) without the divider: q = p * (1/255) is within an ulp of
// the quotient, its error e = p - 255 q is exact in one fused multiply-add, and q + e / 255,
// taken as q + e * (1/255) in another, rounds to the quotient. That last step is not a
// correctly rounded division in general; for the 256 values a byte can take it gives p /
// 255's bits, which pixel_values_test checks for each of them. The divider retires a vector
// of 8 quotients only every 4-5 cycles here, while the three products pipeline: a batch of 64
// digits in 3.5 instead of 7.7 us on the model-167 Xeon (DECISIONS 100).
inline void pixel_loop_fma(std::span<const std::uint8_t> pixels, std::span<float> out) {
  assert(pixels.size() == out.size());
  constexpr float kInverse = 1.0f / kPixelMax;
  const std::uint8_t* p = pixels.data();
  float* o = out.data();
  for (std::size_t i = 0; i < out.size(); ++i) {
    const float x = static_cast<float>(p[i]);
    const float q = x * kInverse;
    const float e = __builtin_fmaf(-q, kPixelMax, x);
    o[i] = __builtin_fmaf(e, kInverse, q);
  }
}

}  // namespace

}  // namespace seatorch::kernels
