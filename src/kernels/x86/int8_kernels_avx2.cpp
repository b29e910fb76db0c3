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
#include "int8_dot_probe.hpp"
#include "int8_gemm_tiles.hpp"

#include <immintrin.h>

namespace seatorch::kernels::x86 {
namespace {

// requantize() of 8 accumulators, as int8 in the low 8 bytes; see requantize_avx512 for the
// srdhm identity.
__m128i requantize8(__m256i acc, const std::int32_t* multiplier, const std::int32_t* shift, std::int32_t zero_point,
                    bool relu) {
  auto load = [](const std::int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); };
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i nudge = _mm256_set1_epi64x(std::int64_t{1} << 30);
  const __m256i mult = load(multiplier);
  const __m256i s = load(shift);
  const __m256i even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(acc, mult), nudge), 31);
  const __m256i odd = _mm256_slli_epi64(
      _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(acc, 32), _mm256_srli_epi64(mult, 32)), nudge), 1);
  const __m256i high = _mm256_blend_epi32(even, odd, 0xAA);
  const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, s), one);
  const __m256i remainder = _mm256_and_si256(high, mask);
  const __m256i threshold = _mm256_sub_epi32(_mm256_srli_epi32(mask, 1), _mm256_srai_epi32(high, 31));
  // cmpgt gives -1 where the remainder rounds up.
  __m256i q = _mm256_sub_epi32(_mm256_srav_epi32(high, s), _mm256_cmpgt_epi32(remainder, threshold));
  q = _mm256_add_epi32(q, _mm256_set1_epi32(zero_point));
  q = _mm256_min_epi32(_mm256_max_epi32(q, _mm256_set1_epi32(relu ? zero_point : -128)), _mm256_set1_epi32(127));
  const __m128i q16 = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
  return _mm_packs_epi16(q16, q16);  // values are in [-128, 127]: no saturation
}

// The 8 outputs y (if wanted) and u = y + 128.
void store8(__m128i y8, std::int8_t* y, std::uint8_t* u) {
  if (y) _mm_storel_epi64(reinterpret_cast<__m128i*>(y), y8);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(u), _mm_xor_si128(y8, _mm_set1_epi8(static_cast<char>(0x80))));
}

// The last 1..7 outputs through the same code: accumulators, multipliers and shifts on
// zero-padded copies, the outputs to a scratch first.
struct Tail {
  std::int32_t acc[8] = {}, multiplier[8] = {}, shift[8] = {};
  std::int8_t y[8];
  std::uint8_t u[8];

  Tail(const std::int32_t* multipliers, const std::int32_t* shifts, std::size_t rest) {
    std::memcpy(multiplier, multipliers, rest * sizeof(std::int32_t));
    std::memcpy(shift, shifts, rest * sizeof(std::int32_t));
  }
  __m256i accumulators() const { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc)); }
  void copy_out(std::size_t rest, std::int8_t* y_out, std::uint8_t* u_out) const {
    if (y_out) std::memcpy(y_out, y, rest);
    std::memcpy(u_out, u, rest);
  }
};

struct Avx2 {
  static constexpr std::size_t kRows = kAvx2Rows;
  static constexpr std::size_t kBlockBytes = kRows * 4 * sizeof(std::int16_t);
  static constexpr int kMR = kAvx2TileImages;  // 4 x 2 accumulators, 2 weight vectors and the broadcast:
  static constexpr int kNR = 2;                // GCC keeps this tile in registers (3 x 3 and 5 x 2 measured slower)
  using Acc = __m256i;                         // (4 rows, 2 partial sums) int32
  // Its 32-byte weight blocks are left to the hardware prefetcher: asking 8 groups ahead
  // measured no different, 16 groups ahead 6 % slower (DECISIONS 53).
  static constexpr std::size_t kPrefetchSteps = 0;
  // Throughput x latency of vpmaddwd and its add (Zen 4: 2 per cycle, 3 + 1 cycles), and few
  // enough that GCC keeps them and their temporaries in the 16 ymm registers (12 spilled).
  static constexpr std::size_t kProbeChains = 12;
  using Act = __m256i;  // 4 activations as int16, repeated 4 times

  static Acc zero() { return _mm256_setzero_si256(); }
  static Acc sub(Acc a, Acc b) { return _mm256_sub_epi32(a, b); }
  // Each row's sum in the first of its two partial sums, the second 0.
  static Acc sums(const std::int32_t* v, std::size_t count) {
    const __m128i four = count >= kRows ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(v))
                                        : _mm_maskload_epi32(v, _mm_cmpgt_epi32(_mm_set1_epi32(static_cast<int>(count)),
                                                                                _mm_setr_epi32(0, 1, 2, 3)));
    return _mm256_cvtepu32_epi64(four);
  }
  static Acc sums(std::uint32_t x) { return _mm256_set1_epi64x(static_cast<long long>(x)); }
  using ActWord = std::uint64_t;  // 4 activations as int16: prepare() widens A

  // A copy of A with every byte zero-extended to int16 (row stride k), once per call: the
  // tile then broadcasts 4 activations straight from memory, with no shuffle per row.
  static void prepare(Operands& g) {
    std::uint16_t* wide = widened_activations(g.m * g.k);  // (m, k)
    for (std::size_t i = 0; i < g.m; ++i) {
      const std::uint8_t* row = g.a + i * g.lda;
      for (std::size_t p = 0; p < g.k; ++p) wide[i * g.k + p] = row[p];
    }
    g.a = reinterpret_cast<const std::uint8_t*>(wide);
    g.lda = g.k;
  }
  static Act broadcast(ActWord four) { return _mm256_set1_epi64x(static_cast<long long>(four)); }
  // 4 rows x 4 weights, widened to int16 when B was packed.
  static Acc load(const std::int8_t* block) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block)); }
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
  static std::uint32_t sum_bytes(const std::uint8_t* row, std::size_t k) {
    __m256i sums = _mm256_setzero_si256();  // 4 partial sums, 64-bit
    std::size_t p = 0;
    for (; p + 32 <= k; p += 32) {
      const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + p));
      sums = _mm256_add_epi64(sums, _mm256_sad_epu8(bytes, _mm256_setzero_si256()));
    }
    alignas(32) std::uint64_t lanes[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), sums);
    std::uint64_t sum = lanes[0] + lanes[1] + lanes[2] + lanes[3];
    for (; p < k; ++p) sum += row[p];
    return static_cast<std::uint32_t>(sum);
  }
  // The fused layer's epilogue: the tile's sums are its accumulators already. Its loop and
  // tail repeat requantize_avx2's on purpose: one template for both, taking the accumulators
  // through lambdas, made this path 5-8 % slower (DECISIONS 55).
  static void requantize_rows(const RequantizeSums& t) {
    for (std::size_t r = 0; r < t.rows; ++r) {
      const std::int32_t* sums = t.sums + r * t.sums_stride;
      std::uint8_t* u = t.u + r * t.ldu;
      std::size_t j = 0;
      for (; j + 8 <= t.n; j += 8) {
        const __m256i acc = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums + j));
        store8(requantize8(acc, t.multiplier + j, t.shift + j, t.zero_point, t.relu), nullptr, u + j);
      }
      if (j == t.n) continue;
      const std::size_t rest = t.n - j;
      Tail tail(t.multiplier + j, t.shift + j, rest);
      std::memcpy(tail.acc, sums + j, rest * sizeof(std::int32_t));
      store8(requantize8(tail.accumulators(), tail.multiplier, tail.shift, t.zero_point, t.relu), tail.y, tail.u);
      tail.copy_out(rest, nullptr, u + j);
    }
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
