// The `avx512` kernel: the packed GEMM driver with an AVX-512F micro-kernel, and the
// AVX-512 FMA-throughput probe. The only file built with -mavx512f; the registry calls it
// only when the CPU and the OS support AVX-512 state. Deliberately not here: the driver's
// loops (gemm_driver.hpp) and threads.
//
// Micro-tile 8 x 32: sixteen zmm accumulators (of 32 registers). On Zen 4 a 512-bit FMA
// runs on both 256-bit pipes, so the peak is the same as AVX2's; what AVX-512 brings is
// the register count (a taller tile, fewer loads per FMA) and masked tails. Zen 5 and the
// Xeons have two full-width pipes, twice the peak; on Zen 5 taller tiles (12 and 14 rows)
// measured 3-6 % slower (DECISIONS 72). Eight rows divide the MLP's 64, 128 and 784. C at
// most 14 rows tall (the 10-class layer's weight gradient dYᵀ·H) runs with tiles exactly that
// tall, and C at most 14 wide (its forward H·Wᵀ, or the gradient in the form Hᵀ·dY) as Cᵀ
// through the same tiles, stored transposed: a 10-row tile wastes no lanes. A C at most 16
// wide, or the last 16 columns of a wider one, runs the tile one register wide (the driver's
// fitted_micro_kernel).
#include "../cpu_vendor.hpp"
#include "../fma_probe.hpp"
#include "../gemm_driver.hpp"
#include "../isa_kernels.hpp"
#include "../sparse_driver.hpp"

#include <immintrin.h>

namespace seatorch::kernels {
namespace {

struct Avx512Vec {
  using Reg = __m512;
  static constexpr std::size_t kLanes = 16;

  static __mmask16 mask(std::size_t n) { return static_cast<__mmask16>((1u << n) - 1u); }
  static Reg zero() { return _mm512_setzero_ps(); }
  static Reg load(const float* p) { return _mm512_loadu_ps(p); }
  static Reg load_n(const float* p, std::size_t n) { return _mm512_maskz_loadu_ps(mask(n), p); }
  static Reg broadcast(const float* p) { return _mm512_set1_ps(*p); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm512_fmadd_ps(a, b, c); }
  static Reg add(Reg a, Reg b) { return _mm512_add_ps(a, b); }
  // maxps returns its second operand unless the first is greater: x for a NaN and for -0.
  // The zero-masking form under a full mask, for transpose()'s reason below.
  static Reg relu(Reg x) { return _mm512_maskz_max_ps(0xffff, _mm512_setzero_ps(), x); }
  static void store(float* p, Reg r) { _mm512_storeu_ps(p, r); }
  static void store_n(float* p, Reg r, std::size_t n) { _mm512_mask_storeu_ps(p, mask(n), r); }
  // The nonzero lanes of x moved to the front (vcompressps into a register) and stored whole,
  // with their indices first + l: the sparse rows' compression (sparse_driver.hpp). Zen 4
  // microcodes the compress straight into memory, which measured 18x slower.
  static std::size_t compress(Reg x, std::uint32_t first, std::uint32_t* column, float* value) {
    const __mmask16 kept = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_NEQ_UQ);
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512i index = _mm512_add_epi32(lanes, _mm512_set1_epi32(static_cast<int>(first)));
    _mm512_storeu_si512(column, _mm512_maskz_compress_epi32(kept, index));
    _mm512_storeu_ps(value, _mm512_maskz_compress_ps(kept, x));
    return static_cast<std::size_t>(__builtin_popcount(kept));
  }
  // 16 x 16: 4 x 4 transposes inside each 128-bit lane (unpack, shuffle), then the 4 x 4
  // transpose of the lanes themselves (two rounds of shuffle_f32x4). Written with the
  // zero-masking forms under a full mask, which compile to the same instructions: the plain
  // forms trip GCC 12's -Wmaybe-uninitialized on their internal _mm512_undefined_ps().
  static void transpose(Reg* r) {
    constexpr __mmask16 kAll = 0xffff;
    Reg t[16], u[16];
    for (int i = 0; i < 16; i += 2) {
      t[i] = _mm512_maskz_unpacklo_ps(kAll, r[i], r[i + 1]);
      t[i + 1] = _mm512_maskz_unpackhi_ps(kAll, r[i], r[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) {
      u[i] = _mm512_maskz_shuffle_ps(kAll, t[i], t[i + 2], 0x44);
      u[i + 1] = _mm512_maskz_shuffle_ps(kAll, t[i], t[i + 2], 0xee);
      u[i + 2] = _mm512_maskz_shuffle_ps(kAll, t[i + 1], t[i + 3], 0x44);
      u[i + 3] = _mm512_maskz_shuffle_ps(kAll, t[i + 1], t[i + 3], 0xee);
    }
    for (int c = 0; c < 4; ++c) {
      t[c] = _mm512_maskz_shuffle_f32x4(kAll, u[c], u[c + 4], 0x88);
      t[c + 4] = _mm512_maskz_shuffle_f32x4(kAll, u[c], u[c + 4], 0xdd);
      t[c + 8] = _mm512_maskz_shuffle_f32x4(kAll, u[c + 8], u[c + 12], 0x88);
      t[c + 12] = _mm512_maskz_shuffle_f32x4(kAll, u[c + 8], u[c + 12], 0xdd);
    }
    for (int i = 0; i < 8; ++i) {
      r[i] = _mm512_maskz_shuffle_f32x4(kAll, t[i], t[i + 8], 0x88);
      r[i + 8] = _mm512_maskz_shuffle_f32x4(kAll, t[i], t[i + 8], 0xdd);
    }
  }
  // 8 x 16 (the 8-row tile's panels): r[i] holds row i's 16 columns; afterwards r[q] holds
  // columns 2q and 2q + 1, each as 8 floats (rows 0..7). Half the shuffles of transpose()
  // on a block whose other 8 rows would be zero, and half the registers to store.
  static void transpose_half(Reg* r) {
    constexpr __mmask16 kAll = 0xffff;
    Reg t[8], u[8], v[8];
    for (int i = 0; i < 8; i += 2) {  // per 128-bit lane: rows i, i + 1 interleaved
      t[i] = _mm512_maskz_unpacklo_ps(kAll, r[i], r[i + 1]);
      t[i + 1] = _mm512_maskz_unpackhi_ps(kAll, r[i], r[i + 1]);
    }
    for (int h = 0; h < 8; h += 4) {  // u[h + c]: rows h..h+3 of columns c, 4 + c, 8 + c, 12 + c
      u[h] = _mm512_maskz_shuffle_ps(kAll, t[h], t[h + 2], 0x44);
      u[h + 1] = _mm512_maskz_shuffle_ps(kAll, t[h], t[h + 2], 0xee);
      u[h + 2] = _mm512_maskz_shuffle_ps(kAll, t[h + 1], t[h + 3], 0x44);
      u[h + 3] = _mm512_maskz_shuffle_ps(kAll, t[h + 1], t[h + 3], 0xee);
    }
    for (int c = 0; c < 4; ++c) {  // v[c], c in 0..7: columns c and c + 8 (rows 0..3, 4..7 of each)
      v[c] = _mm512_maskz_shuffle_f32x4(kAll, u[c], u[c + 4], 0x88);
      v[c + 4] = _mm512_maskz_shuffle_f32x4(kAll, u[c], u[c + 4], 0xdd);
    }
    for (int c = 0; c < 8; c += 2) {
      r[c / 2] = _mm512_maskz_shuffle_f32x4(kAll, v[c], v[c + 1], 0x88);      // columns c, c + 1
      r[c / 2 + 4] = _mm512_maskz_shuffle_f32x4(kAll, v[c], v[c + 1], 0xdd);  // columns c + 8, c + 9
    }
  }
};

constexpr std::size_t kMr = 8;
constexpr std::size_t kNv = 2;
// Up to 14 rows (of C, or of Cᵀ) x 32: 28 accumulators, two for B's row and one broadcast.
constexpr std::size_t kNarrowMaxN = 14;
// A block (128, 512): 256 KiB of the 1 MiB L2; B panel (512, 2048): 4 MiB of L3. A long kc
// halves the passes over C; it measured 2-5% faster than 256 from 512^3 up. Prefetching the
// C tile before a pass of 256 or more when C fills the L2 (1 MiB): on Zen 4 `bench matmul` in
// turns gave 1.09-1.12 x OpenBLAS at 1024^3 with it against 1.03-1.07 x without. A shallow
// pass does not repay it (the depth-64 weight gradient ran 3-10 % slower), and a C the L2
// holds has nothing to gain, so no product of the MLPs' prefetches. On AMD cores a large A
// stored (m, k) is read in place unless its rows are 8 KiB or more apart, B stored (k, n)
// unless 4 KiB (gemm_driver.hpp's choose_packing; measured on Zen 4 and Zen 5).
constexpr Blocking kBlocking{.mc = 128,
                             .kc = 512,
                             .nc = 2048,
                             .prefetch_c_depth = 256,
                             .prefetch_c_floats = std::size_t{1} << 18,
                             .pack_a_from_ld = 2048,
                             .pack_b_from_ld = 1024};
// Intel's cores lose reading them in place: on the model-167 Xeon a large product that packs
// both (as the portable and AVX2 kernels do) ran 512^3 1.02-1.03 x OpenBLAS against
// 0.89-0.96 x, 768^3 0.99-1.01 against 0.87-0.89, 1000^3 0.98-0.99 against 0.80-0.82
// (DECISIONS 110). And they take a first sum of 512 in two passes of 256, whose B micro-panel
// (256 x 32 floats, 32 KiB) fits their 48 KiB L1: 512^3 1.06-1.07 x OpenBLAS against
// 1.00-1.01, 768^3 1.02-1.04 against 0.97-0.98 (DECISIONS 114). A smaller product a pass
// deep packs B too (choose_packing; DECISIONS 115). Neither what is packed nor the passes
// change an element's sums (kSumDepth), so a checkpoint has the same bits on either vendor's
// cores.
constexpr Blocking kIntelBlocking = [] {
  Blocking b = kBlocking;
  b.kc = 256;
  b.pack_a_from_ld = 0;
  b.pack_b_from_ld = 0;
  b.pack_b_from_depth = b.kc;
  return b;
}();

// This CPU's blocking (cpu_vendor() asks CPUID once per process).
const Blocking& blocking() { return cpu_vendor() == CpuVendor::kIntel ? kIntelBlocking : kBlocking; }

// The sparse product's rows 8 registers (128 floats) wide: a row's pass sum takes 8 of the 32
// registers, and the 784-128 layer's 128 outputs are one block.
constexpr std::size_t kSparseNv = 8;
// Each nonzero reads a 512-byte row of op(B)'s block for 8 multiply-adds. Read row by row for
// each row of A, the first layer's Wᵀ (784 rows, 400 KB) and the default model's weight
// gradient's G (128 rows, 64 KB) came from L2, and a core with two 512-bit FMA pipes (Zen 5)
// needs two such loads a cycle: its forward ran no faster than Zen 4's. Walked in chunks of
// 32 KiB (64 rows), which a group of rows reads from L2 once and then from L1, on Zen 5
// (`bench train`, DECISIONS 72): the 784-128 forward 0.052 -> 0.036 s an epoch, the default
// model's weight gradient 0.083 -> 0.058 s and its epoch 0.30 -> 0.23 s. Chunks of 64 KiB
// gave the forward 5 % more and the weight gradient back its 0.083 s; 16 KiB were slower for
// both. The other kernels take each pass in one go: their rows are 64 or 128 bytes (four
// 256-bit registers under `avx2`), whose few chains the FMA latency bounds, not L2 (chunked
// at 8-32 KiB the `avx2` forward ran 8-33 % slower on Zen 5; NEON and the portable kernel
// were not measured chunked).
constexpr std::size_t kSparseChunkBytes = std::size_t{32} << 10;
// A block of more than four such chunks (the forward through a 784-input layer's Wᵀ: 784
// rows of 512 B, 392 KiB) is walked in chunks of 64 KiB instead: a row's pass is then cut
// into 7 pieces rather than 13, its sum put aside between them, and on the model-167 Xeon
// the forward 64x128x784 took 0.0233-0.0236 s an epoch against 0.0259-0.0265, the default model's
// 128x256x784 0.051-0.054 against 0.059-0.060 (DECISIONS 101). The weight gradients' blocks
// (G: 64 or 128 rows of 512 B) keep 32 KiB: in one chunk of 64 KiB the default model's
// 784x256x128:tn took 0.083-0.089 s against 0.079-0.081 there, as on Zen 5 above.
constexpr std::size_t kSparseDeepChunkBytes = std::size_t{64} << 10;
constexpr std::size_t kSparseDeepBlockBytes = 4 * kSparseChunkBytes;
// A deep block's rows (its chunks come from L2 whatever their layout) read in place while
// under 2 KiB apart, not sparse_driver.hpp's 1 KiB. On Zen 5 (a throwaway program, one batch
// of digits, Wᵀ 64-byte aligned as a tensor's storage is; DECISIONS 83) the forward through
// Wᵀ read in place against packed: rows 512 B apart (784-128, batch 64) 25 against 35 us,
// 1 KiB (784-256, batch 128) 110 against 128 us, 2 KiB (784-512) 295 against 250 us, 4 KiB
// (784-1024) 921 against 511 us.
constexpr std::size_t kAvx512DeepSparsePackFromLd = 512;
// A shallow block, whose 32 KiB chunks are meant to stay in L1, keeps the 1 KiB: a block of
// 512 B rows 1 KiB apart (the default model's weight gradient reading G, 128 x 256 floats,
// by panels of 128 columns) puts each chunk in half of the L1's sets, 24 KiB of a 48 KiB L1.
// Packed, on the model-167 Xeon, that product took 135-138 us a batch against 145-146 us in
// place (a throwaway program, one digit batch's Xᵀ, G aligned); in training, with Adam's
// update, 0.177-0.200 s an epoch against 0.185-0.209 s, faster in seven of eight runs in
// turns (DECISIONS 105).
constexpr std::size_t kAvx512ShallowSparsePackFromLd = kSparsePackFromLd;

}  // namespace

void matmul_avx512(const MatmulArgs& args, const Epilogue& epilogue) {
  constexpr auto kShortHeights = std::make_index_sequence<kNarrowMaxN>{};
  if (matmul_degenerate(args, epilogue)) return;
  if (args.shape.m <= kNarrowMaxN) {
    gemm_short<Avx512Vec, kNv, false>(args, epilogue, blocking(), kShortHeights);
  } else if (args.shape.n <= kNarrowMaxN) {
    gemm_short<Avx512Vec, kNv, true>(transposed_problem(args), epilogue, blocking(), kShortHeights);
  } else {
    gemm<Avx512Vec, kMr, kNv>(args, epilogue, blocking());
  }
}

void sparse_matmul_avx512(const SparseMatmulArgs& args, const Epilogue& epilogue) {
  const std::size_t block_bytes =
      args.a->cols * min_of<Avx512Vec>(args.n, kSparseNv * Avx512Vec::kLanes) * sizeof(float);
  const bool deep = block_bytes > kSparseDeepBlockBytes;
  sparse_columns<Avx512Vec, kSparseNv>(args, epilogue, deep ? kSparseDeepChunkBytes : kSparseChunkBytes,
                                       deep ? kAvx512DeepSparsePackFromLd : kAvx512ShallowSparsePackFromLd);
}

void compress_rows_avx512(const float* a, std::size_t ld, std::size_t i0, std::size_t i1, SparseRows& out) {
  compress_rows_loop<Avx512Vec>(a, ld, i0, i1, out);
}

double fma_probe_avx512(std::size_t rounds) { return fma_probe<Avx512Vec>(rounds); }

}  // namespace seatorch::kernels
