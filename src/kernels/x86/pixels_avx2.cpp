// The AVX2 pixel kernel (kernels/pixels.hpp): eight bytes widened to floats per step, the
// quotient by 255 from the reciprocal and one exact-remainder correction. The only file
// built with these flags for it; pixels.cpp calls it only on CPUs with AVX2 and FMA.
#include "../pixel_kernels.hpp"

#include <immintrin.h>

namespace seatorch::kernels {

void pixel_values_avx2(const std::uint8_t* pixels, std::size_t n, float* out) {
  const __m256 reciprocal = _mm256_set1_ps(1.0f / 255.0f);
  const __m256 divisor = _mm256_set1_ps(255.0f);
  for (std::size_t i = 0; i < n; i += kPixelsPerAvx2Step) {
    const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(pixels + i));
    const __m256 p = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes));
    const __m256 q = _mm256_mul_ps(p, reciprocal);
    // p - q * 255 is exact (an FMA rounds once, and the remainder of a near quotient is
    // representable); adding remainder / 255 rounds q to the correctly rounded quotient.
    const __m256 remainder = _mm256_fnmadd_ps(q, divisor, p);
    _mm256_storeu_ps(out + i, _mm256_fmadd_ps(remainder, reciprocal, q));
  }
}

}  // namespace seatorch::kernels
