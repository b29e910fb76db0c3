// int8 gemm with AVX-512BW, for the CPUs with AVX-512 but no VNNI (Intel's Skylake-SP and
// Skylake-X): the avx2 kernel's vpmaddwd on int16 (int8_kernels_avx2.cpp says why not
// vpmaddubsw) at twice the width, 32 exact products per instruction where an AVX-512 FMA does
// 16; the vectorized requantize of every AVX-512 kernel; and the fused layer built from both
// (int8_gemm_tiles.hpp, int8_avx512_shared.hpp).
//
// So a vector holds 8 output rows x 2 partial sums (weights 4p..4p+1 and 4p+2..4p+3 of each
// row), B is packed in blocks of 8 rows (kAvx512BwRows) already widened to int16, A is widened
// once per call so that 4 activations are one 64-bit broadcast, and store() adds each row's
// pair.
// Compiled with -mavx512f -mavx512bw; nothing else may be.
#include "int8_avx512_shared.hpp"
#include "int8_dot_probe.hpp"

#include <immintrin.h>

namespace seatorch::kernels::x86 {
namespace {

// GCC 12 reports the undefined pass-through of its own unmasked widening, narrowing and shift
// intrinsics (_mm512_undefined_epi32()) as uninitialized; the value is never used.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"

struct Avx512Bw : ZmmPolicy {
  static constexpr std::size_t kRows = kAvx512BwRows;
  static constexpr std::size_t kBlockBytes = kRows * 4 * sizeof(std::int16_t);
  // The avx512vnni tile's shape: 6 x 4 accumulators, 4 weight vectors, the broadcast.
  static constexpr int kMR = kAvx512BwTileImages;
  static constexpr int kNR = 4;
  static constexpr std::size_t kPrefetchSteps = 8;
  static constexpr bool kUnrollSteps = false;
  // Throughput x latency of vpmaddwd and its add, with room to spare.
  static constexpr std::size_t kProbeChains = 12;
  using Act = __m512i;  // 4 activations as int16, repeated 8 times

  // Each row's sum in the first of its two partial sums, the second 0.
  static Acc sums(const std::int32_t* v, std::size_t count) {
    const __mmask16 lanes = lanes_of(count < kRows ? count : kRows, 0);  // only those values read
    return _mm512_cvtepu32_epi64(_mm512_castsi512_si256(_mm512_maskz_loadu_epi32(lanes, v)));
  }
  static Acc sums(std::uint32_t x) { return _mm512_set1_epi64(static_cast<long long>(x)); }
  using ActWord = std::uint64_t;  // 4 activations as int16: prepare() widens A

  static void prepare(Operands& g) { widen_activations(g); }
  static Act broadcast(ActWord four) { return _mm512_set1_epi64(static_cast<long long>(four)); }
  // The add written as one instruction on the accumulator itself, as in the avx2 kernel.
  static Acc dot(Acc acc, Act a, Acc b) {
    const __m512i products = _mm512_madd_epi16(b, a);
    __asm__("vpaddd %1, %0, %0" : "+v"(acc) : "v"(products));
    return acc;
  }
  // The 8 row sums: each 64-bit lane's two partial sums added into its low half, then the
  // low halves narrowed to 8 int32.
  static void store(std::int32_t* c, Acc acc) {
    const __m512i pairs = _mm512_add_epi32(acc, _mm512_srli_epi64(acc, 32));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c), _mm512_cvtepi64_epi32(pairs));
  }
};

}  // namespace

void gemm_avx512bw(const Int8GemmArgs& args) { gemm_int32<Avx512Bw>(args); }
void requantize_avx512(const Int8RequantizeArgs& r) {
  with_floor(r.zero_point, r.relu, [&r](auto floor) { requantize_row<decltype(floor)::value>(r); });
}
void layer_avx512bw(const Int8LayerArgs& args) { layer_fused<Avx512Bw>(args); }
double dot_probe_avx512bw(std::size_t rounds) { return dot_probe<Avx512Bw>(rounds); }

#pragma GCC diagnostic pop

}  // namespace seatorch::kernels::x86
