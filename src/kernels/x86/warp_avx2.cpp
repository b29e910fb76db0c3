// warp_bilinear with AVX2: 8 output pixels of a row per step, the four bilinear neighbours
// of each fetched by one gather of its neighbourhood word (warp_kernels.hpp). The same float operations in the same
// order as warp_bilinear_ref (kernels/warp.hpp), so the same bits; a row's tail is masked.
// Compiled with -mavx2 -mfma (no FMA is used: contracting would change the bits); called
// only on CPUs that have both.
#include "../warp_kernels.hpp"

#include <immintrin.h>

namespace seatorch::kernels {

namespace {

// pack_warp_quads, 8 words per step (the padded bytes run 64 past the last word's reads).
void pack_quads(const WarpArgs& args, const WarpScratch& scratch) {
  const std::size_t stride = args.width + 3;
  const std::uint8_t* padded = scratch.padded;
  const auto widen = [](const std::uint8_t* p) {
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  };
  for (std::size_t i = 0; i < (args.height + 2) * stride; i += 8) {
    const __m256i low = _mm256_or_si256(widen(padded + i), _mm256_slli_epi32(widen(padded + i + 1), 8));
    const __m256i high = _mm256_or_si256(_mm256_slli_epi32(widen(padded + i + stride), 16),
                                         _mm256_slli_epi32(widen(padded + i + stride + 1), 24));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(scratch.quads + i), _mm256_or_si256(low, high));
  }
}

}  // namespace

void warp_bilinear_avx2(const WarpArgs& args) {
  const WarpScratch scratch = pad_warp_source(args);
  pack_quads(args, scratch);
  const auto* words = reinterpret_cast<const int*>(scratch.quads);
  const WarpMap& m = args.map;
  const int stride = static_cast<int>(args.width) + 3;
  const __m256i lane_i = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256 lane = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 low = _mm256_set1_ps(-1.0f);
  const __m256 max_x = _mm256_set1_ps(static_cast<float>(args.width));
  const __m256 max_y = _mm256_set1_ps(static_cast<float>(args.height));
  const __m256 xx = _mm256_set1_ps(m.xx);
  const __m256 yx = _mm256_set1_ps(m.yx);
  const __m256 x0 = _mm256_set1_ps(m.x0);
  const __m256 y0 = _mm256_set1_ps(m.y0);
  const __m256 scale = _mm256_set1_ps(255.0f);
  const __m256i vstride = _mm256_set1_epi32(stride);
  const __m256i border = _mm256_set1_epi32(stride + 1);  // the word of floor position (0, 0)
  const __m256i byte = _mm256_set1_epi32(0xFF);
  for (std::size_t y = 0; y < args.height; ++y) {
    const float fy_row = static_cast<float>(y);
    const __m256 xy_y = _mm256_set1_ps(m.xy * fy_row);
    const __m256 yy_y = _mm256_set1_ps(m.yy * fy_row);
    for (std::size_t x = 0; x < args.width; x += 8) {
      const int left = static_cast<int>(args.width - x);
      const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(left), lane_i);
      const __m256 fx_col = _mm256_add_ps(_mm256_set1_ps(static_cast<float>(x)), lane);
      __m256 sx = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(xx, fx_col), xy_y), x0);
      __m256 sy = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(yx, fx_col), yy_y), y0);
      if (args.dx != nullptr) {
        const std::size_t at = y * args.field_stride + x;
        sx = _mm256_add_ps(sx, _mm256_maskload_ps(args.dx + at, mask));
        sy = _mm256_add_ps(sy, _mm256_maskload_ps(args.dy + at, mask));
      }
      sx = _mm256_min_ps(_mm256_max_ps(sx, low), max_x);
      sy = _mm256_min_ps(_mm256_max_ps(sy, low), max_y);
      const __m256 x_floor = _mm256_floor_ps(sx);
      const __m256 y_floor = _mm256_floor_ps(sy);
      const __m256 fx = _mm256_sub_ps(sx, x_floor);
      const __m256 fy = _mm256_sub_ps(sy, y_floor);
      const __m256i at = _mm256_add_epi32(
          _mm256_add_epi32(_mm256_mullo_epi32(_mm256_cvttps_epi32(y_floor), vstride), _mm256_cvttps_epi32(x_floor)),
          border);
      // One gather of the four neighbours' bytes per pixel (warp_kernels.hpp).
      const __m256i q = _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), words, at, mask, 4);
      const __m256 p00 = _mm256_cvtepi32_ps(_mm256_and_si256(q, byte));
      const __m256 p01 = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(q, 8), byte));
      const __m256 p10 = _mm256_cvtepi32_ps(_mm256_and_si256(_mm256_srli_epi32(q, 16), byte));
      const __m256 p11 = _mm256_cvtepi32_ps(_mm256_srli_epi32(q, 24));
      const __m256 wx = _mm256_sub_ps(one, fx);
      const __m256 top = _mm256_add_ps(_mm256_mul_ps(wx, p00), _mm256_mul_ps(fx, p01));
      const __m256 bottom = _mm256_add_ps(_mm256_mul_ps(wx, p10), _mm256_mul_ps(fx, p11));
      const __m256 v = _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(one, fy), top), _mm256_mul_ps(fy, bottom));
      _mm256_maskstore_ps(args.out + y * args.width + x, mask, _mm256_div_ps(v, scale));
    }
  }
}

}  // namespace seatorch::kernels
