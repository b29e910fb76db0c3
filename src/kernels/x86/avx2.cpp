// The `avx2` kernel: the packed GEMM driver with an AVX2 + FMA micro-kernel, and the AVX2
// FMA-throughput probe. The only file built with -mavx2 -mfma; the registry calls it only
// when the CPU reports both. Deliberately not here: the driver's loops (gemm_driver.hpp) and
// threads.
//
// Micro-tile 6 x 16: twelve ymm accumulators, two for B's row and one broadcast fill 15 of
// the 16 registers; per step 12 FMAs against 8 loads keeps both FMA pipes busy.
#include "../cpu_vendor.hpp"
#include "../fma_probe.hpp"
#include "../gemm_driver.hpp"
#include "../isa_kernels.hpp"
#include "../sparse_driver.hpp"

#include <immintrin.h>

#include <array>
#include <cstdint>

namespace seatorch::kernels {
namespace {

// For each 8-bit mask of kept lanes, the lanes in order, then zeros: the permutation that
// moves a register's kept lanes to its front (AVX2 has no compress instruction).
using LanePermutation = std::array<std::int32_t, 8>;
constexpr std::array<LanePermutation, 256> kept_lanes_first() {
  std::array<LanePermutation, 256> table{};
  for (std::size_t mask = 0; mask < 256; ++mask) {
    std::size_t n = 0;
    for (std::int32_t l = 0; l < 8; ++l) {
      if ((mask >> l) & 1u) table[mask][n++] = l;
    }
  }
  return table;
}
constexpr std::array<LanePermutation, 256> kKeptLanesFirst = kept_lanes_first();

struct Avx2Vec {
  using Reg = __m256;
  static constexpr std::size_t kLanes = 8;

  // Lanes [0, n) set: lane l is active when n > l.
  static __m256i mask(std::size_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  static Reg zero() { return _mm256_setzero_ps(); }
  static Reg load(const float* p) { return _mm256_loadu_ps(p); }
  static Reg load_n(const float* p, std::size_t n) { return _mm256_maskload_ps(p, mask(n)); }
  static Reg broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm256_fmadd_ps(a, b, c); }
  static Reg add(Reg a, Reg b) { return _mm256_add_ps(a, b); }
  // maxps returns its second operand unless the first is greater: x for a NaN and for -0.
  static Reg relu(Reg x) { return _mm256_max_ps(_mm256_setzero_ps(), x); }
  static void store(float* p, Reg r) { _mm256_storeu_ps(p, r); }
  // n < 8 lanes as at most three plain stores of 4, 2 and 1 floats. AMD cores run the masked
  // store (vmaskmovps) as a slow microcoded sequence; the transposed tile stores every row of
  // Cᵀ with it (6 of 8 lanes), and on Zen 4 that cost the forward X·Wᵀ 8 % (DECISIONS 62).
  static void store_n(float* p, Reg r, std::size_t n) {
    __m128 part = _mm256_castps256_ps128(r);
    if (n & 4) {
      _mm_storeu_ps(p, part);
      part = _mm256_extractf128_ps(r, 1);
      p += 4;
    }
    if (n & 2) {
      _mm_storel_pi(reinterpret_cast<__m64*>(p), part);
      part = _mm_movehl_ps(part, part);
      p += 2;
    }
    if (n & 1) _mm_store_ss(p, part);
  }
  // The nonzero lanes of x moved to the front through a table of permutations (8 KiB, one
  // per mask) and stored whole, with their indices first + l (sparse_driver.hpp). On Zen 4,
  // it took a batch of 64 digits' rows from 30 to 9 us (the `avx2` kernel) against
  // storing the register and keeping its lanes one by one.
  static std::size_t compress(Reg x, std::uint32_t first, std::uint32_t* column, float* value) {
    const auto kept = static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_NEQ_UQ)));
    const __m256i order = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kKeptLanesFirst[kept].data()));
    const __m256i index = _mm256_add_epi32(order, _mm256_set1_epi32(static_cast<int>(first)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(column), index);
    _mm256_storeu_ps(value, _mm256_permutevar8x32_ps(x, order));
    return static_cast<std::size_t>(__builtin_popcount(kept));
  }
  // 8 x 8: interleave pairs of rows, then pairs of pairs, then swap 128-bit halves.
  static void transpose(Reg* r) {
    Reg t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
      t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
      t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
      u[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
      u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);
      u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
      u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
    }
    for (int c = 0; c < 4; ++c) {
      r[c] = _mm256_permute2f128_ps(u[c], u[c + 4], 0x20);
      r[c + 4] = _mm256_permute2f128_ps(u[c], u[c + 4], 0x31);
    }
  }
};

constexpr std::size_t kMr = 6;
constexpr std::size_t kNv = 2;
constexpr Blocking kBlocking{.mc = 144, .kc = 256, .nc = 2048};
// Intel's cores pack a smaller product's B a pass deep, as the AVX-512 kernel does there
// (choose_packing; DECISIONS 115).
constexpr Blocking kIntelBlocking = [] {
  Blocking b = kBlocking;
  b.pack_b_from_depth = kBlocking.kc;
  return b;
}();

// This CPU's blocking (cpu_vendor() asks CPUID once per process).
const Blocking& blocking() { return cpu_vendor() == CpuVendor::kIntel ? kIntelBlocking : kBlocking; }

// The sparse product's rows 4 registers (32 floats) wide: a row's pass sum takes 4 of the 16
// registers.
constexpr std::size_t kSparseNv = 4;
// Each sum walked in chunks of kc rows (chunk_bytes_of_depth says why).
constexpr std::size_t kSparseChunkBytes = chunk_bytes_of_depth<Avx2Vec, kSparseNv>(kBlocking.kc);

}  // namespace

void matmul_avx2(const MatmulArgs& args, const Epilogue& epilogue) {
  gemm<Avx2Vec, kMr, kNv>(args, epilogue, blocking());
}

void sparse_matmul_avx2(const SparseMatmulArgs& args, const Epilogue& epilogue) {
  sparse_columns<Avx2Vec, kSparseNv>(args, epilogue, kSparseChunkBytes, kSparsePackFromLd);
}

void compress_rows_avx2(const float* a, std::size_t ld, std::size_t i0, std::size_t i1, SparseRows& out) {
  compress_rows_loop<Avx2Vec>(a, ld, i0, i1, out);
}

double fma_probe_avx2(std::size_t rounds) { return fma_probe<Avx2Vec>(rounds); }

}  // namespace seatorch::kernels
