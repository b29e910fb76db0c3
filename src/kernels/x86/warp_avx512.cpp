// warp_bilinear with AVX-512F: warp_loop.hpp's loops, 16 pixels a step. Compiled with
// -mavx512f; called only on CPUs that have it.
#include "warp_loop.hpp"

#include <immintrin.h>

namespace seatorch::kernels {

// GCC 12 reports its own _mm512_undefined_ps() (the pass-through of the unmasked min, max,
// round and convert) as "may be used uninitialized" where the loops inline them; the value is
// never used.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace {

struct Avx512Warp {
  static constexpr std::size_t kLanes = 16;
  using F = __m512;
  using I = __m512i;
  using Mask = __mmask16;

  static Mask first(std::size_t left) { return left >= kLanes ? Mask{0xFFFF} : static_cast<Mask>((1u << left) - 1u); }
  static F iota() { return _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15); }
  static F splat(float v) { return _mm512_set1_ps(v); }
  static I splat(std::int32_t v) { return _mm512_set1_epi32(v); }
  static F add(F a, F b) { return _mm512_add_ps(a, b); }
  static F sub(F a, F b) { return _mm512_sub_ps(a, b); }
  static F mul(F a, F b) { return _mm512_mul_ps(a, b); }
  static F div(F a, F b) { return _mm512_div_ps(a, b); }
  static F min(F a, F b) { return _mm512_min_ps(a, b); }
  static F max(F a, F b) { return _mm512_max_ps(a, b); }
  static F floor(F a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
  static I add(I a, I b) { return _mm512_add_epi32(a, b); }
  static I mul(I a, I b) { return _mm512_mullo_epi32(a, b); }
  static I bit_and(I a, I b) { return _mm512_and_si512(a, b); }
  static I bit_or(I a, I b) { return _mm512_or_si512(a, b); }
  template <int kBits>
  static I shift_left(I a) {
    return _mm512_slli_epi32(a, kBits);
  }
  template <int kBits>
  static I shift_right(I a) {
    return _mm512_srli_epi32(a, kBits);
  }
  static I truncate(F a) { return _mm512_cvttps_epi32(a); }
  static F to_float(I a) { return _mm512_cvtepi32_ps(a); }
  static F load(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
  static void store(float* p, Mask m, F a) { _mm512_mask_storeu_ps(p, m, a); }
  static I gather(const std::uint32_t* words, I at, Mask m) {
    return _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), m, at, words, 4);
  }
  static I widen(const std::uint8_t* p) {
    return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static void store(std::uint32_t* p, I a) { _mm512_storeu_si512(p, a); }
};

}  // namespace

void warp_bilinear_avx512(const WarpArgs& args) { warp_rows<Avx512Warp>(args); }

#pragma GCC diagnostic pop

}  // namespace seatorch::kernels
