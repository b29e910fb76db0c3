// The blocking shared by the x86 int8 kernels, written once over an ISA policy:
//
//   struct Isa {
//     static constexpr std::size_t kRows;   // output rows per vector (int32 lanes)
//     static constexpr std::size_t kBlockBytes;  // packed bytes of kRows x 4 weights
//     static constexpr int kMR, kNR;        // register tile: kMR A rows x kNR row blocks
//     static constexpr std::size_t kPrefetchSteps;  // how many groups of 4 activations ahead
//                                           //   each row block's weights are prefetched; 0: none
//     static constexpr bool kUnrollSteps;   // whether the tile's loop runs two groups a turn
//     using Acc;                            // a vector of kRows int32 sums
//     using Act;                            // 4 activations, prepared for dot()
//     using ActWord;                        // 4 activations as A holds them: 4 bytes, or
//                                           //   4 int16 when prepare() widened A
//     static void prepare(Operands& g);     // may replace A by a copy in its own format
//     static Acc zero();
//     static Acc sub(Acc a, Acc b);
//     static Acc sums(const std::int32_t* v, std::size_t count);  // the kRows sums v[0], v[1], ..,
//                                           //   0 from v[count] on (only count values read)
//     static Acc sums(std::uint32_t x);     // all kRows sums x
//     static Act broadcast(ActWord four);
//     static Acc load(const std::int8_t* block);       // kRows x 4 packed weights (kBlockBytes)
//     static Acc dot(Acc acc, Act a, Acc b);           // acc[r] += sum_t a[t] * b[r][t]
//     static void store(std::int32_t* c, Acc acc);     // all kRows lanes
//     static std::uint32_t sum_bytes(const std::uint8_t* row, std::size_t k);  // mod 2^32
//     static std::uint64_t lit_bits(const std::uint8_t* row, std::size_t count);  // bit t: whether
//                                           //   bytes row[4t .. 4t+3] are not all zero (t < count
//                                           //   <= 64; only those read)
//     static std::size_t list_bits(std::uint64_t bits, std::uint32_t first, std::uint32_t step,
//                                  std::uint32_t* out);  // first + t * step for each bit t set,
//                                           //   in increasing t, to out; returns how many. May
//                                           //   write up to kListSlack entries past them.
//     static void requantize_rows(const RequantizeSums& rows);  // a finished tile's rows
//   };
//
// and an output policy that gives each tile's sums their start and receives them finished:
//
//   struct Out {
//     void start_rows(const Operands& g, std::size_t i0, std::size_t rows);  // before any tile
//                                                     // of tile rows i0 .. (A rows a_row(g, i))
//     // What C (i, j) starts at, before the dot product is added: column(j's row block)
//     // minus row(i), both Isa::Acc.
//     Acc column_start(std::size_t jb);
//     Acc row_start(std::size_t i);
//     // C rows i0 .. i0+rows-1, columns j0 .. j0+count-1: row r at sums + r * stride
//     void tile(std::size_t i0, std::size_t rows, std::size_t j0, const std::int32_t* sums, std::size_t stride,
//               std::size_t count);
//   };
//
// StoreDots starts at zero and writes the dot products to C (the plain gemm); RequantizeDots
// is the fused layer epilogue: its sums start at the layer's row constant minus the image's
// zero-point correction, so they leave the loop as the finished accumulators, and it
// requantizes the tile while it is still in L1, so no int32 matrix is ever written.
// B is packed by pack_b_blocked(kRows), as int8 or widened to int16 (int8_kernels_x86.hpp).
// Included only by the ISA files. Everything here has internal linkage (the unnamed
// namespace) and uses no standard-library templates, so no copy compiled with one file's
// ISA flags can be picked by the linker for code that runs on a CPU without that ISA.
#pragma once

#include "int8_kernels_x86.hpp"

#include <cstring>

namespace seatorch::kernels::x86 {
namespace {

// The operands of one product C (m, n) = A (m, k) * B (n, k)^T.
struct Operands {
  std::size_t m = 0;
  std::size_t n = 0;
  std::size_t k = 0;
  const std::uint8_t* a = nullptr;  // (m, k), row stride lda activations (see ActWord)
  std::size_t lda = 0;
  const std::int8_t* packed_b = nullptr;  // B (n, k) packed for the ISA: blocks of Isa::kBlockBytes
  // For a listed tile (layer_lit's), the only whole groups of 4 activations it visits, in
  // increasing order: the groups not all zero in any of its rows, each as its byte offset in
  // an A row (the group times sizeof(Isa::ActWord)), so that the step takes A's word and B's
  // block with no shift where B's scale fits an address (AVX2: 4). Other tiles visit every one.
  const std::uint32_t* groups = nullptr;
  std::size_t group_count = 0;
  // When set, tile row i computes A row order[i] (a permutation of 0 .. m-1), else A row i;
  // and row_lit holds each A row's lit bits, lit_words 64-bit words a row (layer_lit).
  const std::uint32_t* order = nullptr;
  const std::uint64_t* row_lit = nullptr;
  std::size_t lit_words = 0;
};

// The A row that tile row i computes.
inline std::size_t a_row(const Operands& g, std::size_t i) { return g.order != nullptr ? g.order[i] : i; }

// prepare() for the policies whose ActWord is 4 activations as int16 (vpmaddwd's): a copy of
// A with every byte zero-extended (row stride k), once per call, so that the tile broadcasts
// 4 activations straight from memory, with no shuffle per row.
inline void widen_activations(Operands& g) {
  std::uint16_t* wide = widened_activations(g.m * g.k);  // (m, k)
  for (std::size_t i = 0; i < g.m; ++i) {
    const std::uint8_t* row = g.a + i * g.lda;
    for (std::size_t p = 0; p < g.k; ++p) wide[i * g.k + p] = row[p];
  }
  g.a = reinterpret_cast<const std::uint8_t*>(wide);
  g.lda = g.k;
}

// Requantization of a finished tile, several images' rows of it at once, from the finished
// accumulators (row constant, dot product and correction summed) to the next layer's u.
struct RequantizeSums {
  std::size_t rows = 0;                // images
  std::size_t n = 0;                   // outputs per row
  const std::int32_t* sums = nullptr;  // (rows, n) accumulators, row stride sums_stride
  std::size_t sums_stride = 0;
  const std::int32_t* multiplier = nullptr;  // (n)
  const std::int32_t* shift = nullptr;       // (n)
  std::int32_t zero_point = 0;
  bool relu = false;
  std::uint8_t* u = nullptr;  // (rows, n), row stride ldu
  std::size_t ldu = 0;
};

// The `count` (< 4) activations at `from` that end an A row, as one little-endian word of 4
// with the missing ones zero. A holds sizeof(Word) / 4 bytes per activation.
template <class Word>
Word last_activations(const std::uint8_t* from, std::size_t count) {
  Word v = 0;
  std::memcpy(&v, from, count * (sizeof(Word) / 4));
  return v;
}

// Group p4 of 4 activations (activations 4 p4 .. 4 p4 + 3) as the tiles address it: its byte
// offset in an A row, which A's rows and B's blocks are both reached from (Operands::groups).
template <class Isa>
constexpr std::size_t group_offset(std::size_t p4) {
  return p4 * sizeof(typename Isa::ActWord);
}

// One group of 4 activations, at byte offset `at` of each A row (group_offset): every sum of
// the tile gains its 4 products. `ahead` is the offset of the group Isa::kPrefetchSteps later,
// whose weights it asks for. Past a block's end that is the next block's start, or bytes
// beyond B: a prefetch never faults. kLast: the row's last group, of only `count` (1..3)
// activations: read to the row's end, zero padded, with nothing after it to prefetch.
template <class Isa, int MR, int NR, bool kLast = false>
[[gnu::always_inline]] inline void step(typename Isa::Acc (&acc)[MR][NR], const std::int8_t* const (&b)[NR],
                                        const std::uint8_t* const (&a)[MR], std::size_t at, std::size_t ahead,
                                        std::size_t count = 4) {
  using Word = typename Isa::ActWord;
  constexpr std::size_t kBlocksPerAct = Isa::kBlockBytes / sizeof(Word);
  typename Isa::Acc bv[NR];
#pragma GCC unroll 8
  for (int c = 0; c < NR; ++c) bv[c] = Isa::load(b[c] + at * kBlocksPerAct);
  if constexpr (!kLast && Isa::kPrefetchSteps > 0) {
#pragma GCC unroll 8
    for (int c = 0; c < NR; ++c) __builtin_prefetch(b[c] + ahead * kBlocksPerAct);
  }
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
    Word four;
    if constexpr (kLast) {
      four = last_activations<Word>(a[r] + at, count);
    } else {
      std::memcpy(&four, a[r] + at, sizeof(four));
    }
    const typename Isa::Act av = Isa::broadcast(four);
#pragma GCC unroll 8
    for (int c = 0; c < NR; ++c) acc[r][c] = Isa::dot(acc[r][c], av, bv[c]);
  }
}

// C rows of tile rows i0 .. i0+MR-1 (A rows a_row(g, i)), row blocks jb0 .. jb0+NR-1, handed
// to `out`.
//
// The shape of this function is what keeps GCC 12 fast here: fully unrolled loops over
// compile-time bounds, the partial group of k (1..3 activations) done *before* the main loop, and
// after it only whole-vector stores to a local array. With the partial group after the loop,
// a masked store of the accumulators, or a lambda that took them, GCC copied every accumulator
// to another register on each iteration (2 moves per vpdpbusd) and ran at 2/3 of the kernel's
// speed; step() above, forced inline, leaves them in place (checked in the disassembly).
// And it is never inlined: inlined into layer_avx2, the AVX2 tile reloaded its four
// activation row pointers from the stack on every step; on its own it keeps them in
// registers (`bench int8`, AVX2 path, median 311k -> 334k images/s over seven pairs on Zen 4,
// DECISIONS 62). The VNNI tile was already compiled on its own. A listed tile (kListed:
// layer_lit's) takes its groups' offsets from g.groups; the rest of its step is the same.
template <class Isa, int MR, int NR, bool kListed, class Out>
[[gnu::noinline]] void tile(const Operands& g, std::size_t i0, std::size_t jb0, Out& out) {
  constexpr std::size_t R = Isa::kRows;
  const std::size_t k4 = (g.k + 3) / 4;
  const std::size_t full = g.k / 4;
  const std::int8_t* b[NR];
#pragma GCC unroll 8
  for (int c = 0; c < NR; ++c) b[c] = g.packed_b + (jb0 + static_cast<std::size_t>(c)) * k4 * Isa::kBlockBytes;
  const std::uint8_t* a[MR];
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r)
    a[r] = g.a + a_row(g, i0 + static_cast<std::size_t>(r)) * g.lda * (sizeof(typename Isa::ActWord) / 4);

  typename Isa::Acc acc[MR][NR];  // (tile rows, blocks of output columns): a register of sums each
  {
    typename Isa::Acc column[NR];
#pragma GCC unroll 8
    for (int c = 0; c < NR; ++c) column[c] = out.column_start(jb0 + static_cast<std::size_t>(c));
#pragma GCC unroll 8
    for (int r = 0; r < MR; ++r) {
      const typename Isa::Acc row = out.row_start(i0 + static_cast<std::size_t>(r));
#pragma GCC unroll 8
      for (int c = 0; c < NR; ++c) acc[r][c] = Isa::sub(column[c], row);
    }
  }
  // The last 1..3 activations, zero padded, come first.
  if (full < k4) step<Isa, MR, NR, true>(acc, b, a, group_offset<Isa>(full), 0, g.k - 4 * full);
  const std::size_t steps = kListed ? g.group_count : full;
  const auto at = [&](std::size_t e) { return kListed ? g.groups[e] : group_offset<Isa>(e); };
  // Two loops, not one under `#pragma GCC unroll` of a policy's count: GCC 12 crashes on a
  // count that depends on the template.
  if constexpr (Isa::kUnrollSteps) {
#pragma GCC unroll 2
    for (std::size_t e = 0; e < steps; ++e) step<Isa, MR, NR>(acc, b, a, at(e), at(e + Isa::kPrefetchSteps));
  } else {
    for (std::size_t e = 0; e < steps; ++e) step<Isa, MR, NR>(acc, b, a, at(e), at(e + Isa::kPrefetchSteps));
  }

  alignas(64) std::int32_t sums[MR][NR * R];  // the tile, (MR, NR * kRows)
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) {
#pragma GCC unroll 8
    for (int c = 0; c < NR; ++c) Isa::store(sums[r] + static_cast<std::size_t>(c) * R, acc[r][c]);
  }
  const std::size_t j0 = jb0 * R;
  const std::size_t count = g.n - j0 < NR * R ? g.n - j0 : NR * R;
  out.tile(i0, MR, j0, sums[0], NR * R, count);
}

// The last `rest` (< NR) row blocks, with a tile of exactly that width.
template <class Isa, int MR, int NR, bool kListed, class Out>
void tile_rest_n(const Operands& g, std::size_t i0, std::size_t jb0, std::size_t rest, Out& out) {
  if constexpr (NR > 0) {
    if (rest == NR) return tile<Isa, MR, NR, kListed>(g, i0, jb0, out);
    tile_rest_n<Isa, MR, NR - 1, kListed>(g, i0, jb0, rest, out);
  }
}

template <class Isa, int MR, bool kListed, class Out>
void row_tile(const Operands& g, std::size_t i0, Out& out) {
  out.start_rows(g, i0, MR);
  const std::size_t blocks = (g.n + Isa::kRows - 1) / Isa::kRows;
  std::size_t jb = 0;
  for (; jb + Isa::kNR <= blocks; jb += Isa::kNR) tile<Isa, MR, Isa::kNR, kListed>(g, i0, jb, out);
  tile_rest_n<Isa, MR, Isa::kNR - 1, kListed>(g, i0, jb, blocks - jb, out);
}

// row_tile over every group of A, or with kLit over the groups lit in one of its rows
// (lit_groups, below).
template <class Isa, int MR, bool kLit, class Out>
void row_tile_of(const Operands& g, std::size_t i0, Out& out);

template <class Isa, int MR, bool kLit, class Out>
void row_tile_rest(const Operands& g, std::size_t i0, std::size_t rest, Out& out) {
  if constexpr (MR > 0) {
    if (rest == MR) return row_tile_of<Isa, MR, kLit>(g, i0, out);
    row_tile_rest<Isa, MR - 1, kLit>(g, i0, rest, out);
  }
}

// A's rows in tiles of MR (the last ones shorter). Row tiles outermost: a tile row's A bytes
// stay in L1 across all of B, and B (at most a few hundred KiB for these layers) streams from
// L2 fast enough to keep vpdpbusd busy.
template <class Isa, int MR, bool kLit, class Out>
void gemm_rows(const Operands& g, Out& out) {
  std::size_t i = 0;
  for (; i + MR <= g.m; i += MR) row_tile_of<Isa, MR, kLit>(g, i, out);
  row_tile_rest<Isa, MR - 1, kLit>(g, i, g.m - i, out);
}

template <class Isa, class Out>
void gemm_blocked(const Operands& g, Out& out) {
  gemm_rows<Isa, Isa::kMR, false>(g, out);
}

// The plain gemm's output: the dot products into C.
template <class Isa>
struct StoreDots {
  std::int32_t* c;  // (m, n), row stride ldc
  std::size_t ldc;

  void start_rows(const Operands&, std::size_t, std::size_t) {}
  typename Isa::Acc column_start(std::size_t) const { return Isa::zero(); }
  typename Isa::Acc row_start(std::size_t) const { return Isa::zero(); }
  void tile(std::size_t i0, std::size_t rows, std::size_t j0, const std::int32_t* dots, std::size_t stride,
            std::size_t count) {
    for (std::size_t r = 0; r < rows; ++r)
      std::memcpy(c + (i0 + r) * ldc + j0, dots + r * stride, count * sizeof(std::int32_t));
  }
};

// The fused layer's output: each tile row requantized straight to the next layer's bytes.
template <class Isa>
struct RequantizeDots {
  const Int8LayerArgs& layer;
  std::size_t first_row = 0;           // the first tile row of the current row tile
  std::uint32_t correction[Isa::kMR];  // per A row of that tile: z_w * sum_i x_i

  void start_rows(const Operands& g, std::size_t i0, std::size_t rows) {
    for (std::size_t r = 0; r < rows; ++r) {
      correction[r] = 0;
      if (layer.weight_zero_point != 0) {
        // sum_i x_i = sum_i u_i - 128 k; everything mod 2^32, as the accumulator's terms.
        const std::uint32_t sum_x =
            Isa::sum_bytes(layer.a + a_row(g, i0 + r) * layer.lda, layer.k) - static_cast<std::uint32_t>(128 * layer.k);
        correction[r] = static_cast<std::uint32_t>(layer.weight_zero_point) * sum_x;
      }
    }
    first_row = i0;
  }
  // The sums start at row_constant_j - correction_i (mod 2^32, as the accumulator's terms).
  typename Isa::Acc column_start(std::size_t jb) const {
    return Isa::sums(layer.row_constant + jb * Isa::kRows, layer.n - jb * Isa::kRows);
  }
  typename Isa::Acc row_start(std::size_t i) const { return Isa::sums(correction[i - first_row]); }
  void tile(std::size_t i0, std::size_t rows, std::size_t j0, const std::int32_t* sums, std::size_t stride,
            std::size_t count) {
    Isa::requantize_rows({rows, count, sums, stride, layer.multiplier + j0, layer.shift + j0, layer.zero_point,
                          layer.relu, layer.u + i0 * layer.ldu + j0, layer.ldu});
  }
};

template <class Isa>
void gemm_int32(const Int8GemmArgs& g) {
  StoreDots<Isa> out{g.c, g.ldc};
  Operands o{g.m, g.n, g.k, g.a, g.lda, g.packed_b};
  Isa::prepare(o);
  gemm_blocked<Isa>(o, out);
}

// ---- the same layer over an A that is mostly zeros (the first layer's pixels) ------------
//
// A zero activation's products are zeros, and integer sums are exact in any order, so a tile
// may skip the groups of 4 activations that are all zero in every one of its rows: the result
// is the dense tiles', bit for bit. A batch of MNIST digits has 28 % of its groups lit in a
// row, about half in the union of 4 rows; a hidden layer's rows, whose zeros are scattered,
// next to none all zero. The tiles are the ISA's own, Isa::kMR rows: a tile of more rows
// visits more groups (a union of 4 digits 43.5 % of them, of 6 46.9 %) but streams B from L2
// once for more of them. On Zen 4, with the group lists built a bit at a time, the AVX-512
// VNNI kernel's 6-row tile gave 1.13 M images/s this way, 4 rows 1.17-1.18 M (DECISIONS 66);
// on Zen 5, with the lists built by vector compresses, 6 rows ran 7 % faster than 4, and
// AVX-VNNI's 6 rows 3 % faster (DECISIONS 87). One row at a time through each row's own list
// was slower than not skipping at all (Zen 4: 0.74 M against 0.86 M).
// The longest row whose group list fits on the stack (a std::vector here could be the copy
// of its code the linker keeps for files built without this ISA); longer rows run dense.
inline constexpr std::size_t kMaxLitGroups = 1024;

// 64-bit words of lit bits an A row has at most: one bit per whole group of 4 activations.
inline constexpr std::size_t kMaxLitWords = kMaxLitGroups / 64;

// The 64-bit words of lit bits of a row of k activations.
inline std::size_t lit_words(std::size_t k) { return (k / 4 + 63) / 64; }

// The first group lit in a row's lit bits (`words` of them), or `none` when none is.
inline std::size_t first_lit_group(const std::uint64_t* bits, std::size_t words, std::size_t none) {
  for (std::size_t w = 0; w < words; ++w) {
    if (bits[w] != 0) return w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits[w]));
  }
  return none;
}

// How many entries past its count an Isa::list_bits may write: a vector's worth of lanes.
inline constexpr std::size_t kListSlack = 16;

// The whole groups of 4 activations lit in any of tile rows i0 .. i0+rows-1 (g.row_lit), in
// increasing order, into groups as byte offsets in an A row (Operands::groups); their count.
// The Isa::kPrefetchSteps entries after the last are group k / 4's (the tile prefetches that
// far ahead in the list; past B's block a prefetch never faults). The list is made by vector
// compresses of the bits (Isa::list_bits): a bit at a time, its loop took half of layer_lit's
// samples, and the AVX-512 VNNI path ran 4 % slower (DECISIONS 87).
template <class Isa>
std::size_t lit_groups(const Operands& g, std::size_t i0, std::size_t rows, std::uint32_t* groups) {
  std::uint64_t any[kMaxLitWords] = {};  // (g.lit_words): the OR of the tile's rows' lit bits
  for (std::size_t r = 0; r < rows; ++r) {
    const std::uint64_t* bits = g.row_lit + a_row(g, i0 + r) * g.lit_words;
    for (std::size_t w = 0; w < g.lit_words; ++w) any[w] |= bits[w];
  }
  std::size_t count = 0;
  for (std::size_t w = 0; w < g.lit_words; ++w) {
    count += Isa::list_bits(any[w], static_cast<std::uint32_t>(group_offset<Isa>(w * 64)),
                            static_cast<std::uint32_t>(group_offset<Isa>(1)), groups + count);
  }
  for (std::size_t s = 0; s < Isa::kPrefetchSteps; ++s)
    groups[count + s] = static_cast<std::uint32_t>(group_offset<Isa>(g.k / 4));
  return count;
}

// A group list: every whole group of 4 activations, and room for the prefetch's entries
// after them and for list_bits' writes past its count.
template <class Isa>
using GroupList = std::uint32_t[kMaxLitGroups + (Isa::kPrefetchSteps > kListSlack ? Isa::kPrefetchSteps : kListSlack)];

template <class Isa, int MR, bool kLit, class Out>
void row_tile_of(const Operands& g, std::size_t i0, Out& out) {
  if constexpr (kLit) {
    GroupList<Isa> groups;
    Operands listed = g;
    listed.groups = groups;
    listed.group_count = lit_groups<Isa>(g, i0, MR, groups);
    row_tile<Isa, MR, true>(listed, i0, out);
  } else {
    row_tile<Isa, MR, false>(g, i0, out);
  }
}

// How many rows ahead mostly_zero_rows asks for A's lines: it is the first pass to touch A,
// and the hardware prefetcher alone left its loads waiting. On Zen 5 2 or 4 rows ahead
// measured no faster than 8, 16 or 32 slower (DECISIONS 87).
inline constexpr std::size_t kLitScanAhead = 8;

// Whether at most kLitGroupsPercent of the layer's whole groups of 4 activations are lit,
// with the A rows' lit bits then in row_lit, (m, lit_words(k)), from A as the layer
// holds it (bytes; Isa::prepare() keeps every group where it was). A dense layer (a hidden
// one) stops as soon as its count passes the share, about half-way through its rows.
// Vector compares: the scalar test of every group of every tile's rows (and of 16 rows sampled
// to judge the layer) that they replaced took a fifth of the VNNI path's samples in `perf`.
// All rows, not a sample: the sampled rows' first touch was a cache miss each.
template <class Isa>
bool mostly_zero_rows(const Int8LayerArgs& l, std::uint64_t* row_lit) {
  const std::size_t full = l.k / 4;
  const std::size_t words = lit_words(l.k);
  const std::size_t most = kLitGroupsPercent * full * l.m / 100;  // lit groups allowed
  std::size_t lit = 0;
  for (std::size_t i = 0; i < l.m; ++i) {
    if (i + kLitScanAhead < l.m) {
      const std::uint8_t* ahead = l.a + (i + kLitScanAhead) * l.lda;
      for (std::size_t b = 0; b < l.k; b += 64) __builtin_prefetch(ahead + b);
    }
    std::uint64_t* bits = row_lit + i * words;  // (words)
    for (std::size_t w = 0; w < words; ++w) {
      bits[w] = Isa::lit_bits(l.a + i * l.lda + w * 64 * 4, full - w * 64 < 64 ? full - w * 64 : 64);
      lit += static_cast<std::size_t>(__builtin_popcountll(bits[w]));
    }
    if (lit > most) return false;
  }
  return true;
}

// The fused layer over a mostly-zero A (prepared), whose rows' lit bits are in
// scratch.row_lit: tiles of Isa::kMR rows, each over its rows' lit groups. The tiles take
// A's rows in the order of their first lit group, so that rows lit alike share a tile: a tile
// of 4 MNIST digits then visits 43.5 % of the groups instead of 47.6 % (DECISIONS 67). They
// write their outputs in that order to a scratch, which goes back to the layer's rows at the
// end.
template <class Isa>
void layer_lit(const Int8LayerArgs& l, Operands o, const LitScratch& scratch) {
  const std::size_t groups = o.k / 4;  // a row with none lit goes last
  const std::size_t words = lit_words(o.k);
  const auto first_lit = [&](std::size_t i) { return first_lit_group(scratch.row_lit + i * words, words, groups); };
  // A counting sort: stable, and linear in m.
  std::uint32_t starts[kMaxLitGroups + 1];  // (groups + 1): rows per first lit group, then where they go
  std::memset(starts, 0, (groups + 1) * sizeof(starts[0]));  // not all 4 KiB: a first layer has ~200 groups
  for (std::size_t i = 0; i < o.m; ++i) ++starts[first_lit(i)];
  std::uint32_t next = 0;
  for (std::size_t key = 0; key <= groups; ++key) {
    const std::uint32_t rows = starts[key];
    starts[key] = next;
    next += rows;
  }
  for (std::size_t i = 0; i < o.m; ++i) scratch.order[starts[first_lit(i)]++] = static_cast<std::uint32_t>(i);

  o.order = scratch.order;
  o.row_lit = scratch.row_lit;
  o.lit_words = words;
  Int8LayerArgs in_order = l;  // tile row i's outputs at scratch.u row i
  in_order.u = scratch.u;
  in_order.ldu = l.n;
  RequantizeDots<Isa> out{in_order, 0, {}};
  gemm_rows<Isa, Isa::kMR, true>(o, out);
  for (std::size_t i = 0; i < o.m; ++i) std::memcpy(l.u + scratch.order[i] * l.ldu, scratch.u + i * l.n, l.n);
}

template <class Isa>
void layer_fused(const Int8LayerArgs& l) {
  // Few enough lit groups for the tiles to visit only those? Either way the outputs are the
  // same; only the time differs.
  const bool listable = (l.k + 3) / 4 <= kMaxLitGroups;
  const LitScratch scratch = listable ? lit_scratch(l.m, lit_words(l.k), l.n) : LitScratch{};
  const bool mostly_zero = listable && mostly_zero_rows<Isa>(l, scratch.row_lit);
  Operands o{l.m, l.n, l.k, l.a, l.lda, l.packed_b};
  Isa::prepare(o);
  if (mostly_zero) return layer_lit<Isa>(l, o, scratch);
  RequantizeDots<Isa> out{l, 0, {}};
  gemm_blocked<Isa>(o, out);
}

}  // namespace
}  // namespace seatorch::kernels::x86
