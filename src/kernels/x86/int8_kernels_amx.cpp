// int8 gemm with AMX (Intel's Advanced Matrix Extensions, Sapphire Rapids and later): tdpbusd
// multiplies a tile of 16 images x 64 unsigned activation bytes by a tile of 64 x 16 signed
// weights into 16 x 16 int32 sums, exactly (no saturation; the sums wrap like vpdpbusd's),
// 16,384 products an instruction where a 512-bit vpdpbusd does 64; and the fused layer built
// from it and the AVX-512 requantization (int8_avx512_shared.hpp).
//
// B is packed as for the avx512vnni kernel, blocks of 16 output rows with k in groups of 4,
// but with k padded to whole tiles of 64 (pack_b_tiles): a block's 16 groups are one B tile,
// 1 KiB at a row stride of 64 bytes. A is copied once per call into whole tiles (TileProduct).
// Sums come in blocks of 2 x 2 tiles (32 images x 32 outputs), which with their two A and
// two B tiles take all eight tile registers; the k-blocks zero in all 32 images are skipped.
// Compiled with -mavx512f -mavx512bw -mamx-tile -mamx-int8; nothing else may be. Callers check
// cpu_runs(Isa::kAmxInt8) first, which also asks Linux for the tile state (arch_prctl).
// Deliberately not here: the int8_gemm_tiles.hpp blocking (its tiles are vector registers,
// these the AMX unit's own), bf16, threads.
#include "int8_avx512_shared.hpp"

#include <immintrin.h>

namespace seatorch::kernels::x86 {
namespace {

constexpr std::size_t kTileRows = 16;                                 // A and C rows per tile: images
constexpr std::size_t kTileDepth = 4 * kAmxTileGroups;                // activations per A tile row: 64
constexpr std::size_t kTileBytes = kAmxTileGroups * kAvx512Rows * 4;  // a B tile: (16 groups, 16 outputs, 4)
static_assert(kTileRows == kAmxTileImages && kTileRows == kAvx512Rows);

// The eight tile registers, each 16 rows of 64 bytes: tmm0-3 the sums of (A tile a, B tile b) at
// tmm(2 a + b), tmm4-5 the A tiles, tmm6-7 the B tiles. GCC 12's tile intrinsics paste their
// operand into the instruction's text, so the numbers below are written as literals.

// A block of sums: at most 2 x 2 tiles, 32 images x 32 outputs.
constexpr std::size_t kBlockTiles = 2;
constexpr std::size_t kBlockCols = kBlockTiles * kAvx512Rows;

// The tile state of palette 1: every register 16 rows x 64 bytes. Loading it zeroes the tiles;
// the destructor hands the state back (an unused tile state costs nothing at a context switch).
class TileState {
 public:
  TileState() {
    struct alignas(64) Config {
      std::uint8_t palette = 1;
      std::uint8_t start_row = 0;
      std::uint8_t reserved[14] = {};
      std::uint16_t bytes_per_row[16] = {};
      std::uint8_t rows[16] = {};
    } config;
    for (int t = 0; t < 8; ++t) {
      config.bytes_per_row[t] = 64;
      config.rows[t] = kTileRows;
    }
    _tile_loadconfig(&config);
  }
  TileState(const TileState&) = delete;
  TileState& operator=(const TileState&) = delete;
  ~TileState() { _tile_release(); }
};

// A (m, k) copied into whole tiles, zero padded: tile t's k-block b (its 16 rows' activations
// 64 b .. 64 b + 63) at acts + (t * blocks + b) * 1 KiB, rows 64 bytes apart. A tile load then
// reads 1 KiB in a row rather than 16 lines an A row apart, the tails (k % 64, m % 16) need no
// case of their own (a tile load reads whole rows of 64 bytes and may not read past A), and
// the copy finds on the way which k-blocks are all zero (MNIST's first and last rows of
// pixels) and each row's byte sum. On the first layer's shape with dense random inputs, A read
// in place with no prefetch ran 0.49-0.53 T products/s, this 0.76-0.86 T (DECISIONS 102).
struct TileProduct {
  std::size_t m = 0, n = 0, k = 0;
  std::size_t blocks = 0;                 // k-blocks of 64 activations: ceil(k / 64)
  std::size_t act_tiles = 0;              // A tiles: ceil(m / 16)
  const std::int8_t* packed_b = nullptr;  // pack_b_tiles of B (n, k)
  std::uint8_t* acts = nullptr;           // (act_tiles, blocks, 16, 64)
  // Bit b of lit[t]: k-block b is not all zero in A tile t. Only the first 64 blocks have a
  // bit; the rest are always visited (visits()).
  std::uint64_t* lit = nullptr;        // (act_tiles)
  std::uint32_t* byte_sums = nullptr;  // (act_tiles * 16): each row's sum of u, mod 2^32

  TileProduct(std::size_t m_, std::size_t n_, std::size_t k_, const std::uint8_t* a, std::size_t lda,
              const std::int8_t* b)
      : m(m_),
        n(n_),
        k(k_),
        blocks((k_ + kTileDepth - 1) / kTileDepth),
        act_tiles((m_ + kTileRows - 1) / kTileRows),
        packed_b(b) {
    const AmxScratch scratch = amx_scratch(act_tiles * blocks * kTileRows * kTileDepth, act_tiles);
    acts = scratch.acts;
    lit = scratch.lit;
    byte_sums = scratch.byte_sums;
    const __m512i zero = _mm512_setzero_si512();
    for (std::size_t t = 0; t < act_tiles; ++t) {
      std::uint64_t tile_lit = 0;
      for (std::size_t r = 0; r < kTileRows; ++r) {
        const std::size_t i = t * kTileRows + r;
        __m512i sums = zero;  // 8 partial sums, 64-bit
        for (std::size_t blk = 0; blk < blocks; ++blk) {
          const std::size_t count = i < m ? (k - blk * kTileDepth < kTileDepth ? k - blk * kTileDepth : kTileDepth) : 0;
          const __mmask64 bytes = count == kTileDepth ? ~__mmask64{0} : (__mmask64{1} << count) - 1;
          const std::uint8_t* from = i < m ? a + i * lda + blk * kTileDepth : a;  // reads count bytes
          const __m512i row = _mm512_maskz_loadu_epi8(bytes, from);
          _mm512_store_si512(acts + ((t * blocks + blk) * kTileRows + r) * kTileDepth, row);
          sums = _mm512_add_epi64(sums, _mm512_sad_epu8(row, zero));
          if (_mm512_test_epi8_mask(row, row) != 0) tile_lit |= blk < 64 ? std::uint64_t{1} << blk : 0;
        }
        byte_sums[i] = static_cast<std::uint32_t>(sum_lanes(sums));
      }
      lit[t] = tile_lit;
    }
  }

  [[nodiscard]] const std::uint8_t* act(std::size_t t, std::size_t blk) const {
    return acts + (t * blocks + blk) * kTileRows * kTileDepth;
  }
  // Output block jb's B tile for k-block blk.
  [[nodiscard]] const std::int8_t* weights(std::size_t jb, std::size_t blk) const {
    return packed_b + (jb * blocks + blk) * kTileBytes;
  }
  // Whether k-block blk is to be visited under `lit_any`, the OR of some tiles' lit.
  [[nodiscard]] static bool visits(std::uint64_t lit_any, std::size_t blk) {
    return blk >= 64 || ((lit_any >> blk) & 1) != 0;
  }
};

// GCC 12's tileloadd does not tell the compiler that it reads memory (its tilestored does):
// called before tile loads, this makes every store before it reach memory first. It emits no
// instruction.
inline void finish_stores_before_tile_loads() { __asm__ volatile("" ::: "memory"); }

// Asks for the 1 KiB tile at `tile` in L1: the tile loads from L2 alone left the unit waiting
// (10 % more products per second in a throwaway loop of this layer's shape).
[[gnu::always_inline]] inline void prefetch_tile(const void* tile) {
  for (std::size_t line = 0; line < kTileBytes; line += 64)
    _mm_prefetch(static_cast<const char*>(tile) + line, _MM_HINT_T0);
}

// The sums of A tiles at .. at+MT-1 and output blocks jb .. jb+NT-1, over the k-blocks lit in
// any of those tiles, to sums (32, 32): image r's output jb * 16 + c at sums[r * 32 + c].
template <int MT, int NT>
[[gnu::noinline]] void block(const TileProduct& p, std::size_t at, std::size_t jb, std::int32_t* sums) {
  const std::size_t at1 = MT == 2 ? at + 1 : at;  // MT = 1 reads only tile at
  const std::size_t jb1 = NT == 2 ? jb + 1 : jb;  // NT = 1 reads only block jb
  const std::uint64_t lit = p.lit[at] | p.lit[at1];
  finish_stores_before_tile_loads();  // the packed A
  _tile_zero(0);
  if constexpr (NT == 2) _tile_zero(1);
  if constexpr (MT == 2) _tile_zero(2);
  if constexpr (MT == 2 && NT == 2) _tile_zero(3);
  for (std::size_t blk = 0; blk < p.blocks; ++blk) {
    if (!p.visits(lit, blk)) continue;
    if (blk + 1 < p.blocks) {
      prefetch_tile(p.act(at, blk + 1));
      if constexpr (MT == 2) prefetch_tile(p.act(at1, blk + 1));
      prefetch_tile(p.weights(jb, blk + 1));
      if constexpr (NT == 2) prefetch_tile(p.weights(jb1, blk + 1));
    }
    _tile_loadd(4, p.act(at, blk), 64);
    if constexpr (MT == 2) _tile_loadd(5, p.act(at1, blk), 64);
    _tile_loadd(6, p.weights(jb, blk), 64);
    if constexpr (NT == 2) _tile_loadd(7, p.weights(jb1, blk), 64);
    _tile_dpbusd(0, 4, 6);
    if constexpr (NT == 2) _tile_dpbusd(1, 4, 7);
    if constexpr (MT == 2) _tile_dpbusd(2, 5, 6);
    if constexpr (MT == 2 && NT == 2) _tile_dpbusd(3, 5, 7);
  }
  constexpr long kStride = kBlockCols * sizeof(std::int32_t);
  _tile_stored(0, sums, kStride);
  if constexpr (NT == 2) _tile_stored(1, sums + kAvx512Rows, kStride);
  if constexpr (MT == 2) _tile_stored(2, sums + kTileRows * kBlockCols, kStride);
  if constexpr (MT == 2 && NT == 2) _tile_stored(3, sums + kTileRows * kBlockCols + kAvx512Rows, kStride);
}

// C over blocks of 2 x 2 tiles, A's tiles outermost (B's blocks outermost measured the same:
// either way one operand streams from L2, DECISIONS 102). out(i0, rows, j0, count, sums) takes
// each block's sums.
template <class Out>
void tile_product(const TileProduct& p, Out&& out) {
  const TileState state;
  const std::size_t weight_tiles = (p.n + kAvx512Rows - 1) / kAvx512Rows;
  alignas(64) std::int32_t sums[kBlockTiles * kTileRows * kBlockCols];  // (32, 32)
  for (std::size_t at = 0; at < p.act_tiles; at += kBlockTiles) {
    const bool pair = at + 1 < p.act_tiles;
    const std::size_t i0 = at * kTileRows;
    const std::size_t rows = p.m - i0 < kBlockTiles * kTileRows ? p.m - i0 : kBlockTiles * kTileRows;
    for (std::size_t wt = 0; wt < weight_tiles; wt += kBlockTiles) {
      const bool two_cols = wt + 1 < weight_tiles;
      if (pair) {
        two_cols ? block<2, 2>(p, at, wt, sums) : block<2, 1>(p, at, wt, sums);
      } else {
        two_cols ? block<1, 2>(p, at, wt, sums) : block<1, 1>(p, at, wt, sums);
      }
      const std::size_t j0 = wt * kAvx512Rows;
      out(i0, rows, j0, p.n - j0 < kBlockCols ? p.n - j0 : kBlockCols, sums);
    }
  }
}

}  // namespace

void gemm_amx(const Int8GemmArgs& g) {
  const TileProduct p(g.m, g.n, g.k, g.a, g.lda, g.packed_b);
  tile_product(p, [&g](std::size_t i0, std::size_t rows, std::size_t j0, std::size_t count, const std::int32_t* sums) {
    for (std::size_t r = 0; r < rows; ++r)
      std::memcpy(g.c + (i0 + r) * g.ldc + j0, sums + r * kBlockCols, count * sizeof(std::int32_t));
  });
}

void layer_amx(const Int8LayerArgs& l) {
  const TileProduct p(l.m, l.n, l.k, l.a, l.lda, l.packed_b);
  tile_product(p, [&](std::size_t i0, std::size_t rows, std::size_t j0, std::size_t count, std::int32_t* sums) {
    // The finished accumulators: row constant + dots - z_w * sum_i x_i, where
    // sum_i x_i = sum_i u_i - 128 k; everything mod 2^32, as the accumulator's terms.
    __m512i correction[kBlockTiles * kTileRows];  // (rows): each image's, in every lane
    for (std::size_t r = 0; r < rows; ++r) {
      const std::uint32_t sum_x = p.byte_sums[i0 + r] - static_cast<std::uint32_t>(128 * l.k);
      correction[r] =
          _mm512_set1_epi32(static_cast<std::int32_t>(static_cast<std::uint32_t>(l.weight_zero_point) * sum_x));
    }
    for (std::size_t c = 0; c < count; c += 16) {
      const __m512i column = _mm512_maskz_loadu_epi32(lanes_of(count, c), l.row_constant + j0 + c);
      for (std::size_t r = 0; r < rows; ++r) {
        std::int32_t* at = sums + r * kBlockCols + c;
        _mm512_store_si512(at, _mm512_add_epi32(_mm512_load_si512(at), _mm512_sub_epi32(column, correction[r])));
      }
    }
    requantize_sums({rows, count, sums, kBlockCols, l.multiplier + j0, l.shift + j0, l.zero_point, l.relu,
                     l.u + i0 * l.ldu + j0, l.ldu});
  });
}

double dot_probe_amx(std::size_t rounds) {
  const TileState state;
  alignas(64) std::uint8_t acts[kTileRows * kTileDepth];  // (16, 64)
  alignas(64) std::int8_t weights[kTileBytes];            // (16, 16, 4)
  volatile std::uint8_t seed = 3;                         // read at run time: nothing is computed ahead
  static_assert(sizeof(acts) == sizeof(weights));
  for (std::size_t i = 0; i < sizeof(acts); ++i) {
    acts[i] = static_cast<std::uint8_t>(seed + i);
    weights[i] = static_cast<std::int8_t>(seed * i);
  }
  finish_stores_before_tile_loads();
  _tile_loadd(4, acts, 64);
  _tile_loadd(5, acts, 64);
  _tile_loadd(6, weights, 64);
  _tile_loadd(7, weights, 64);
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  // Four independent chains: one tdpbusd issues every 16 cycles and its sums are ready well
  // within the other three's.
  for (std::size_t r = 0; r < rounds; ++r) {
    _tile_dpbusd(0, 4, 6);
    _tile_dpbusd(1, 4, 7);
    _tile_dpbusd(2, 5, 6);
    _tile_dpbusd(3, 5, 7);
  }
  // Every chain's sums are consumed, so that none of them can be dropped.
  alignas(64) std::int32_t sums[4][kTileRows * kAvx512Rows];  // (chains, 16 x 16)
  _tile_stored(0, sums[0], 64);
  _tile_stored(1, sums[1], 64);
  _tile_stored(2, sums[2], 64);
  _tile_stored(3, sums[3], 64);
  std::uint32_t sum = 0;
  for (const auto& chain : sums) {
    for (const std::int32_t s : chain) sum += static_cast<std::uint32_t>(s);
  }
  volatile std::uint32_t sink = sum;
  (void)sink;
  return static_cast<double>(rounds) * 4 * static_cast<double>(kTileRows * kAvx512Rows * kTileDepth);
}

}  // namespace seatorch::kernels::x86
