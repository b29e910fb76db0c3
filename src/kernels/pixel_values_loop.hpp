// The loop of kernels/pixel_values.hpp, written once and compiled once per ISA: by
// pixel_values.cpp for the reference and by x86/pixel_values_avx2.cpp with -mavx2. It has
// internal linkage (the unnamed namespace) and calls no library function, so no copy built
// with one file's ISA flags can be picked by the linker for a CPU without that ISA.
#pragma once

#include "seatorch/kernels/pixel_values.hpp"

#include <cassert>

namespace seatorch::kernels {

#if defined(__x86_64__)
// src/kernels/x86/pixel_values_avx2.cpp: the loop built for AVX2 CPUs.
void pixel_values_avx2(std::span<const std::uint8_t> pixels, std::span<float> out);
#endif

namespace {

inline void pixel_loop(std::span<const std::uint8_t> pixels, std::span<float> out) {
  assert(pixels.size() == out.size());
  const std::uint8_t* p = pixels.data();
  float* o = out.data();
  for (std::size_t i = 0; i < out.size(); ++i) o[i] = pixel_value(p[i]);
}

}  // namespace

}  // namespace seatorch::kernels
