// The pixel loop corrected by fused multiply-adds (pixel_values_loop.hpp) built for AVX2 with
// FMA: 8 pixels per instruction and no divider. Compiled with -mavx2 -mfma and without
// contraction, so that the product q is rounded before its error is taken.
#include "../pixel_values_loop.hpp"

namespace seatorch::kernels {

void pixel_values_avx2(std::span<const std::uint8_t> pixels, std::span<float> out) { pixel_loop_fma(pixels, out); }

}  // namespace seatorch::kernels
