// The pixel kernels beside the specification (kernels/pixels.hpp). Each is defined in a file
// compiled with its ISA flags; pixels.cpp calls one only after checking the CPU.
#pragma once

#include <cstddef>
#include <cstdint>

namespace seatorch::kernels {

inline constexpr std::size_t kPixelsPerAvx2Step = 8;

#if defined(__x86_64__)
// out[i] = pixels[i] / 255 for i < n, n a multiple of kPixelsPerAvx2Step.
void pixel_values_avx2(const std::uint8_t* pixels, std::size_t n, float* out);  // x86/pixels_avx2.cpp
#endif

}  // namespace seatorch::kernels
