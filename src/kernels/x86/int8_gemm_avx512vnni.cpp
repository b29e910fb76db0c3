// int8 gemm with AVX-512 VNNI: vpdpbusd multiplies 4 unsigned activation bytes by 4 signed
// weight bytes and adds the 4 products to each int32 lane, exactly (no saturation).
// Compiled with -mavx512f -mavx512bw -mavx512vnni; nothing else may be.
#include "int8_gemm_tiles.hpp"

#include <immintrin.h>

namespace seatorch::kernels::x86 {
namespace {

struct Avx512Vnni {
  static constexpr std::size_t kRows = kAvx512Rows;
  static constexpr int kMR = 4;  // 4 x 4 accumulators + 4 weight vectors: 21 of 32 registers
  static constexpr int kNR = 4;
  using Acc = __m512i;
  using Act = __m512i;

  static Acc zero() { return _mm512_setzero_si512(); }
  static Act broadcast(std::uint32_t four) { return _mm512_set1_epi32(static_cast<int>(four)); }
  static Acc load(const std::int8_t* block) { return _mm512_loadu_si512(block); }
  static Acc dot(Acc acc, Act a, Acc b) { return _mm512_dpbusd_epi32(acc, a, b); }
  static void store(std::int32_t* c, Acc acc, std::size_t count) {
    _mm512_mask_storeu_epi32(c, static_cast<__mmask16>((1u << count) - 1u), acc);
  }
};

}  // namespace

void gemm_avx512vnni(const Int8GemmArgs& args) { gemm_blocked<Avx512Vnni>(args); }

}  // namespace seatorch::kernels::x86
