// warp_bilinear with AVX2: warp_loop.hpp's loops, 8 pixels a step. Compiled with -mavx2
// -mfma (no FMA is used: contracting would change the bits); called only on CPUs that have
// both.
#include "warp_loop.hpp"

#include <immintrin.h>

namespace seatorch::kernels {
namespace {

struct Avx2Warp {
  static constexpr std::size_t kLanes = 8;
  using F = __m256;
  using I = __m256i;
  using Mask = __m256i;  // all ones in the lanes touched

  static Mask first(std::size_t left) {
    const int lanes = static_cast<int>(left < kLanes ? left : kLanes);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static F iota() { return _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7); }
  static F splat(float v) { return _mm256_set1_ps(v); }
  static I splat(std::int32_t v) { return _mm256_set1_epi32(v); }
  static F add(F a, F b) { return _mm256_add_ps(a, b); }
  static F sub(F a, F b) { return _mm256_sub_ps(a, b); }
  static F mul(F a, F b) { return _mm256_mul_ps(a, b); }
  static F div(F a, F b) { return _mm256_div_ps(a, b); }
  static F min(F a, F b) { return _mm256_min_ps(a, b); }
  static F max(F a, F b) { return _mm256_max_ps(a, b); }
  static F floor(F a) { return _mm256_floor_ps(a); }
  static I add(I a, I b) { return _mm256_add_epi32(a, b); }
  static I mul(I a, I b) { return _mm256_mullo_epi32(a, b); }
  static I bit_and(I a, I b) { return _mm256_and_si256(a, b); }
  static I bit_or(I a, I b) { return _mm256_or_si256(a, b); }
  template <int kBits>
  static I shift_left(I a) {
    return _mm256_slli_epi32(a, kBits);
  }
  template <int kBits>
  static I shift_right(I a) {
    return _mm256_srli_epi32(a, kBits);
  }
  static I truncate(F a) { return _mm256_cvttps_epi32(a); }
  static F to_float(I a) { return _mm256_cvtepi32_ps(a); }
  static F load(const float* p, Mask m) { return _mm256_maskload_ps(p, m); }
  static void store(float* p, Mask m, F a) { _mm256_maskstore_ps(p, m, a); }
  static I gather(const std::uint32_t* words, I at, Mask m) {
    return _mm256_mask_i32gather_epi32(_mm256_setzero_si256(), reinterpret_cast<const int*>(words), at, m, 4);
  }
  static I widen(const std::uint8_t* p) {
    return _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  }
  static void store(std::uint32_t* p, I a) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), a); }
};

}  // namespace

void warp_bilinear_avx2(const WarpArgs& args) { warp_rows<Avx2Warp>(args); }

}  // namespace seatorch::kernels
