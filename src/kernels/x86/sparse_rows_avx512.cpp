// compress_rows' row loop for AVX-512F: 16 elements at a time, their nonzeros moved to the
// front of a register (vcompressps) and stored whole, the slot then moved on by their count.
// Compiled with -mavx512f only. The compress goes into a register and is stored with a plain
// store: Zen 4 microcodes the compress straight into memory, which measured 18x slower.
#include "../sparse_rows_loop.hpp"

#include <immintrin.h>

#include <bit>

namespace seatorch::kernels {

std::size_t compress_row_avx512(const float* row, std::size_t cols, std::uint32_t* column, float* value) {
  const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  std::size_t n = 0;
  for (std::size_t p = 0; p < cols; p += 16) {
    const std::size_t left = cols - p;
    const __mmask16 inside = left >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << left) - 1u);
    const __m512 x = _mm512_maskz_loadu_ps(inside, row + p);
    const __mmask16 kept = _mm512_mask_cmp_ps_mask(inside, x, _mm512_setzero_ps(), _CMP_NEQ_UQ);
    const __m512i index = _mm512_add_epi32(lanes, _mm512_set1_epi32(static_cast<int>(p)));
    _mm512_storeu_si512(column + n, _mm512_maskz_compress_epi32(kept, index));
    _mm512_storeu_ps(value + n, _mm512_maskz_compress_ps(kept, x));
    n += static_cast<std::size_t>(std::popcount(static_cast<unsigned>(kept)));
  }
  return n;
}

}  // namespace seatorch::kernels
