// int8 gemm with AVX2 vpmaddubsw, avoiding its pitfall: vpmaddubsw adds two u8*s8 products
// into a saturating int16, and 255*127 + 255*127 = 64770 does not fit. So each activation
// byte u is split as u = 2*h + l with h = u >> 1 in [0, 127] and l = u & 1: the pair sums
// h0*w0 + h1*w1 are within +-32512 and l0*w0 + l1*w1 within +-256, both exact in int16.
// vpmaddwd then widens them to int32 (times 2 and times 1) and adds the pairs.
// Compiled with -mavx2; nothing else may be.
#include "int8_gemm_tiles.hpp"

#include <immintrin.h>

namespace seatorch::kernels::x86 {
namespace {

struct Avx2 {
  static constexpr std::size_t kRows = kAvx2Rows;
  static constexpr int kMR = 3;  // 3 x 2 accumulators, 2 weight vectors, 2 activation halves,
  static constexpr int kNR = 2;  // 2 constants and temporaries: within the 16 registers
  using Acc = __m256i;
  struct Act {
    __m256i high;  // 4 x (u >> 1), broadcast
    __m256i low;   // 4 x (u & 1), broadcast
  };

  static Acc zero() { return _mm256_setzero_si256(); }
  static Act broadcast(std::uint32_t four) {
    return {_mm256_set1_epi32(static_cast<int>((four >> 1) & 0x7F7F7F7Fu)),
            _mm256_set1_epi32(static_cast<int>(four & 0x01010101u))};
  }
  static Acc load(const std::int8_t* block) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block)); }
  static Acc dot(Acc acc, Act a, Acc b) {
    const __m256i high = _mm256_maddubs_epi16(a.high, b);  // int16 pair sums, |.| <= 32512
    const __m256i low = _mm256_maddubs_epi16(a.low, b);    // int16 pair sums, |.| <= 256
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(high, _mm256_set1_epi16(2)));
    return _mm256_add_epi32(acc, _mm256_madd_epi16(low, _mm256_set1_epi16(1)));
  }
  static void store(std::int32_t* c, Acc acc, std::size_t count) {
    if (count == kRows) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(c), acc);
      return;
    }
    alignas(32) std::int32_t lanes[kRows];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
    for (std::size_t i = 0; i < count; ++i) c[i] = lanes[i];
  }
};

}  // namespace

void gemm_avx2(const Int8GemmArgs& args) { gemm_blocked<Avx2>(args); }

}  // namespace seatorch::kernels::x86
