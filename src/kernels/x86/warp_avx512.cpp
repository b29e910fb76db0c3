// warp_bilinear with AVX-512F: 16 output pixels of a row per step, the four bilinear
// neighbours of each fetched by one gather of its neighbourhood word (warp_kernels.hpp). The same float operations
// in the same order as warp_bilinear_ref (kernels/warp.hpp), so the same bits; a row's tail
// is masked. Compiled with -mavx512f; called only on CPUs that have it.
#include "../warp_kernels.hpp"

#include <immintrin.h>

namespace seatorch::kernels {

// GCC 12 reports its own _mm512_undefined_ps() (the pass-through of the unmasked min, max,
// round and convert) as "may be used uninitialized"; the value is never used.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace {

// pack_warp_quads, 16 words per step (the padded bytes run 64 past the last word's reads).
void pack_quads(const WarpArgs& args, const WarpScratch& scratch) {
  const std::size_t stride = args.width + 3;
  const std::uint8_t* padded = scratch.padded;
  const auto widen = [](const std::uint8_t* p) {
    return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  };
  for (std::size_t i = 0; i < (args.height + 2) * stride; i += 16) {
    const __m512i low = _mm512_or_si512(widen(padded + i), _mm512_slli_epi32(widen(padded + i + 1), 8));
    const __m512i high = _mm512_or_si512(_mm512_slli_epi32(widen(padded + i + stride), 16),
                                         _mm512_slli_epi32(widen(padded + i + stride + 1), 24));
    _mm512_storeu_si512(scratch.quads + i, _mm512_or_si512(low, high));
  }
}

}  // namespace

void warp_bilinear_avx512(const WarpArgs& args) {
  const WarpScratch scratch = pad_warp_source(args);
  pack_quads(args, scratch);
  const std::uint32_t* quads = scratch.quads;
  const WarpMap& m = args.map;
  const int stride = static_cast<int>(args.width) + 3;
  const __m512 lane = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 low = _mm512_set1_ps(-1.0f);
  const __m512 max_x = _mm512_set1_ps(static_cast<float>(args.width));
  const __m512 max_y = _mm512_set1_ps(static_cast<float>(args.height));
  const __m512 xx = _mm512_set1_ps(m.xx);
  const __m512 yx = _mm512_set1_ps(m.yx);
  const __m512 x0 = _mm512_set1_ps(m.x0);
  const __m512 y0 = _mm512_set1_ps(m.y0);
  const __m512 scale = _mm512_set1_ps(255.0f);
  const __m512i vstride = _mm512_set1_epi32(stride);
  const __m512i border = _mm512_set1_epi32(stride + 1);  // the word of floor position (0, 0)
  const __m512i byte = _mm512_set1_epi32(0xFF);
  for (std::size_t y = 0; y < args.height; ++y) {
    const float fy_row = static_cast<float>(y);
    const __m512 xy_y = _mm512_set1_ps(m.xy * fy_row);
    const __m512 yy_y = _mm512_set1_ps(m.yy * fy_row);
    for (std::size_t x = 0; x < args.width; x += 16) {
      const std::size_t left = args.width - x;
      const __mmask16 mask = left >= 16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << left) - 1u);
      const __m512 fx_col = _mm512_add_ps(_mm512_set1_ps(static_cast<float>(x)), lane);
      __m512 sx = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(xx, fx_col), xy_y), x0);
      __m512 sy = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(yx, fx_col), yy_y), y0);
      if (args.dx != nullptr) {
        const std::size_t at = y * args.field_stride + x;
        sx = _mm512_add_ps(sx, _mm512_maskz_loadu_ps(mask, args.dx + at));
        sy = _mm512_add_ps(sy, _mm512_maskz_loadu_ps(mask, args.dy + at));
      }
      sx = _mm512_min_ps(_mm512_max_ps(sx, low), max_x);
      sy = _mm512_min_ps(_mm512_max_ps(sy, low), max_y);
      const __m512 x_floor = _mm512_roundscale_ps(sx, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
      const __m512 y_floor = _mm512_roundscale_ps(sy, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
      const __m512 fx = _mm512_sub_ps(sx, x_floor);
      const __m512 fy = _mm512_sub_ps(sy, y_floor);
      const __m512i at = _mm512_add_epi32(
          _mm512_add_epi32(_mm512_mullo_epi32(_mm512_cvttps_epi32(y_floor), vstride), _mm512_cvttps_epi32(x_floor)),
          border);
      // One gather of the four neighbours' bytes per pixel (warp_kernels.hpp).
      const __m512i q = _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), mask, at, quads, 4);
      const __m512 p00 = _mm512_cvtepi32_ps(_mm512_and_si512(q, byte));
      const __m512 p01 = _mm512_cvtepi32_ps(_mm512_and_si512(_mm512_srli_epi32(q, 8), byte));
      const __m512 p10 = _mm512_cvtepi32_ps(_mm512_and_si512(_mm512_srli_epi32(q, 16), byte));
      const __m512 p11 = _mm512_cvtepi32_ps(_mm512_srli_epi32(q, 24));
      const __m512 wx = _mm512_sub_ps(one, fx);
      const __m512 top = _mm512_add_ps(_mm512_mul_ps(wx, p00), _mm512_mul_ps(fx, p01));
      const __m512 bottom = _mm512_add_ps(_mm512_mul_ps(wx, p10), _mm512_mul_ps(fx, p11));
      const __m512 v = _mm512_add_ps(_mm512_mul_ps(_mm512_sub_ps(one, fy), top), _mm512_mul_ps(fy, bottom));
      _mm512_mask_storeu_ps(args.out + y * args.width + x, mask, _mm512_div_ps(v, scale));
    }
  }
}

#pragma GCC diagnostic pop

}  // namespace seatorch::kernels
