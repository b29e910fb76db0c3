// int8 gemm with AVX2 vpmaddwd on int16. vpmaddubsw would take the bytes as they are, but it
// adds two u8*s8 products into a saturating int16 (255*127 + 255*127 = 64770 does not fit),
// and an exact way around that costs six instructions per 32 products, four of them on the
// two multiply ports. Widened to int16, every product and pair sum is exact in vpmaddwd's
// int32 lanes, and one vpmaddwd does 16 products: twice the products per multiply-port
// instruction, which is what beats float FMA (8 per instruction) on the same ports.
//
// So a vector holds 4 output rows x 2 partial sums (weights 4p..4p+1 and 4p+2..4p+3 of each
// row), B is packed in blocks of 4 rows (kAvx2Rows) already widened to int16 (once per
// layer, not once per tile row), A is widened once per call (prepare()) so that 4
// activations are one 64-bit broadcast, and store() adds each row's pair.
// Compiled with -mavx2; nothing else may be.
#include "int8_avx2_shared.hpp"
#include "int8_dot_probe.hpp"

#include <immintrin.h>

namespace seatorch::kernels::x86 {
namespace {

struct Avx2 : YmmPolicy {
  static constexpr std::size_t kRows = kAvx2Rows;
  static constexpr std::size_t kBlockBytes = kRows * 4 * sizeof(std::int16_t);
  static constexpr int kMR = kAvx2TileImages;  // 4 x 2 accumulators, 2 weight vectors and the broadcast:
  static constexpr int kNR = 2;                // GCC keeps this tile in registers (3 x 3 and 5 x 2 measured slower)
  using Acc = __m256i;                         // (4 rows, 2 partial sums) int32
  // Its 32-byte weight blocks are left to the hardware prefetcher: asking 8 groups ahead
  // measured no different, 16 groups ahead 6 % slower (DECISIONS 53).
  static constexpr std::size_t kPrefetchSteps = 0;
  // Two groups a turn: the loop's 28 instructions per 8 vpmaddwd become 45 per 16 (with the
  // list's byte offsets), `bench int8`'s AVX2 path 2-3 % faster on Zen 5 (DECISIONS 76). The
  // VNNI tiles measured no faster so, and stay rolled.
  static constexpr bool kUnrollSteps = true;
  // Throughput x latency of vpmaddwd and its add (Zen 4: 2 per cycle, 3 + 1 cycles), and few
  // enough that GCC keeps them and their temporaries in the 16 ymm registers (with the
  // intrinsic add, 12 chains spilled; the inline vpaddd on the accumulator keeps them).
  static constexpr std::size_t kProbeChains = 12;
  using Act = __m256i;  // 4 activations as int16, repeated 4 times

  // Each row's sum in the first of its two partial sums, the second 0.
  static Acc sums(const std::int32_t* v, std::size_t count) {
    const __m128i four = count >= kRows ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(v))
                                        : _mm_maskload_epi32(v, _mm_cmpgt_epi32(_mm_set1_epi32(static_cast<int>(count)),
                                                                                _mm_setr_epi32(0, 1, 2, 3)));
    return _mm256_cvtepu32_epi64(four);
  }
  static Acc sums(std::uint32_t x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  using ActWord = std::uint64_t;  // 4 activations as int16: prepare() widens A

  static void prepare(Operands& g) { widen_activations(g); }
  static Act broadcast(ActWord four) { return _mm256_set1_epi64x(static_cast<long long>(four)); }
  // load() (YmmPolicy) reads a block of 4 rows x 4 weights, widened to int16 when B was packed.
  // The add is written as one instruction whose destination is the accumulator itself: with
  // the intrinsic, GCC 12 put each sum in a new register and copied it back every step (one
  // vmovdqa per vpmaddwd, and spills).
  static Acc dot(Acc acc, Act a, Acc b) {
    const __m256i products = _mm256_madd_epi16(b, a);
    __asm__("vpaddd %1, %0, %0" : "+x"(acc) : "x"(products));
    return acc;
  }
  // The 4 row sums: hadd puts rows 0, 1 in the low half and rows 2, 3 in the high half.
  static void store(std::int32_t* c, Acc acc) {
    const __m256i pairs = _mm256_hadd_epi32(acc, acc);
    const __m128i rows = _mm_unpacklo_epi64(_mm256_castsi256_si128(pairs), _mm256_extracti128_si256(pairs, 1));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(c), rows);
  }
};

}  // namespace

void gemm_avx2(const Int8GemmArgs& args) { gemm_int32<Avx2>(args); }
void layer_avx2(const Int8LayerArgs& args) { layer_fused<Avx2>(args); }
double dot_probe_avx2(std::size_t rounds) { return dot_probe<Avx2>(rounds); }
void requantize_avx2(const Int8RequantizeArgs& r) {
  auto load = [](const std::int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); };
  std::size_t j = 0;
  for (; j + 8 <= r.n; j += 8) {
    const __m256i acc =
        _mm256_sub_epi32(_mm256_add_epi32(load(r.row_constant + j), load(r.dots + j)), _mm256_set1_epi32(r.correction));
    store8(requantize8(acc, r.multiplier + j, r.shift + j, r.zero_point, r.relu), r.y ? r.y + j : nullptr, r.u + j);
  }
  if (j == r.n) return;
  const std::size_t rest = r.n - j;
  Tail tail(r.multiplier + j, r.shift + j, rest);
  for (std::size_t i = 0; i < rest; ++i) {  // mod 2^32, as the vector lanes
    tail.acc[i] =
        static_cast<std::int32_t>(static_cast<std::uint32_t>(r.row_constant[j + i]) +
                                  static_cast<std::uint32_t>(r.dots[j + i]) - static_cast<std::uint32_t>(r.correction));
  }
  store8(requantize8(tail.accumulators(), tail.multiplier, tail.shift, r.zero_point, r.relu), tail.y, tail.u);
  tail.copy_out(rest, r.y ? r.y + j : nullptr, r.u + j);
}

}  // namespace seatorch::kernels::x86
