// The cache-blocked GEMM driver in the GotoBLAS/BLIS manner, written once for every ISA.
//
//   for jc in N step NC:                      B panel  (KC, NC)  -> L3, packed by NR columns
//     for pc in K step KC:
//       for ic in M step MC:                  A block  (MC, KC)  -> L2, packed by MR rows
//         for jr in NC step NR:               B micro-panel (KC, NR) -> L1 (or streams from L2)
//           for ir in MC step MR:             micro_kernel: the (MR, NR) tile in registers
//
// Packing copies op(A) and op(B) into contiguous, zero-padded micro-panels in the order the
// micro-kernel reads them (gemm_pack.hpp). When an operand is small or already laid out the
// way the micro-kernel reads it, packing costs more than it saves, so the driver may read it
// in place (see choose_packing); the micro-kernel addresses both through strides.
//
// Every template takes the ISA traits V first (see micro_kernel.hpp for why).
// Deliberately not here: threads, alpha/beta scaling, intrinsics.
#pragma once

#include "gemm_pack.hpp"
#include "gemm_support.hpp"
#include "micro_kernel.hpp"

#include "seatorch/core/prefetch.hpp"
#include "seatorch/kernels/matmul.hpp"

#include <cstddef>
#include <utility>

namespace seatorch::kernels {

// Cache-blocking parameters in elements; mc is a multiple of the ISA's MR and nc of NR
// (gemm_short's tiles, as tall as C, need no such fit: C is shorter than mc).
struct Blocking {
  std::size_t mc = 0;  // rows of the A block kept in L2
  std::size_t kc = 0;  // depth of one pass (the micro-panels' length); pass_depth may go up to 1.25 kc
  std::size_t nc = 0;  // columns of the B panel kept in L3
  // In a product whose C has at least prefetch_c_floats elements, ask for each C tile's cache
  // lines before a pass at least prefetch_c_depth deep (0: never); see prefetch_tile.
  std::size_t prefetch_c_depth = 0;
  std::size_t prefetch_c_floats = 0;
  // A large product's A stored (m, k), and B stored (k, n), are each packed when their rows
  // are at least this many floats apart (0: however far apart); closer rows are read in
  // place. See choose_packing.
  std::size_t pack_a_from_ld = 0;
  std::size_t pack_b_from_ld = 0;
  // A product of at most 2 mc rows packs B stored (k, n), under at least kPanelReaders tiles
  // of A, when it is at least this deep (0: only where B's rows alias). See choose_packing.
  std::size_t pack_b_from_depth = 0;
};

// Which operands the driver copies into micro-panels rather than reading in place.
struct Packing {
  bool a = true;
  bool b = true;
};

// Which operands to copy into micro-panels. The rules, and why each one:
// - B stored transposed is always packed: the micro-kernel reads rows of op(B).
// - Otherwise packing pays only for large problems (m > 2 MC). Each B micro-panel is re-read
//   from memory once per A block, so past two blocks one contiguous copy is cheaper than
//   strided re-reads; and when C is also wide (n > 4 NR), A's block is reused by so many
//   micro-panels that a copy free of cache conflicts pays too (Zen 4: +3 % to +20 % at
//   1024..2048 for the 6-row AVX2 tile).
// - Even then, on AMD cores, the AVX-512 tile reads A stored (m, k) in place while its rows
//   are under 8 KiB apart (Blocking::pack_a_from_ld): 384^3-768^3 1.4-1.8 % faster than
//   through the copy on Zen 4 and the default model's evaluation forward 1024x256x784:nt 3 %
//   (DECISIONS 63). Rows 4 KiB apart put each depth's 8 lines of the tile's rows in one L1
//   set: 1024^3 the same on Zen 4 (8 ways), a median 1.045x OpenBLAS against 1.03x on Zen 5
//   (12 ways; DECISIONS 79); 8 KiB apart, 2048^3 1.2 % slower on Zen 4. The AVX2 tile lost
//   2.4 % at 1000^3 in place and gained at most 1 % below, so it packs.
// - And B stored (k, n) while its rows are under 4 KiB apart (pack_b_from_ld): on Zen 5 384^3
//   2-4 % and 512^3 1-3 % faster in place, 768^3 the same; at 1024^3, rows 4 KiB apart, 6-8 %
//   slower (DECISIONS 78): each step reads a whole line pair of a new row, all in two sets.
//   Intel's cores lose both: the model-167 Xeon ran 512^3-1000^3 up to a fifth faster with
//   both packed, so there the AVX-512 kernel packs them as the others do (DECISIONS 110).
// - Small problems, the MLP's, read both in place: there a copy costs up to 10 % and buys
//   nothing.
// - Except A stored (k, m), the weight gradient's dYᵀ, when its rows are a multiple of 1 KiB
//   apart. Read in place, each step of the depth loop moves to the next row, and an L1 of 64
//   sets (every kind here: 32 KiB 8-way on Zen, 48 KiB 12-way on the Xeon) keeps such rows
//   in 4 of them, so a micro-panel deeper than 32 rows is evicted before the next tile reads
//   the rest of its lines. On Zen 3 the default model's weight gradient 256x784x128:tn ran at
//   a median 0.80 x OpenBLAS in place and 0.90 x packed (six pairs in turns), and its
//   backward phase in 0.79 s rather than 0.70 (medians of eight epochs each; DECISIONS 48).
// - Rows 512 B apart share 8 sets, and packing them pays only when many B micro-panels reuse
//   the copy (n > 16 NR): the 784-128-10 model's dYᵀ (64 rows of 128 floats) for C 784 wide,
//   49 AVX2 panels, ran 97 -> 103 GFLOPS packed on Zen 4 (AVX-512, 25 panels: 107 -> 109),
//   while the default model's second layer, C 256 wide (16 AVX2 panels, 8 AVX-512 ones), lost
//   1.5-2 % (DECISIONS 62).
// - And B stored (k, n) with its rows a multiple of 4 KiB apart, deeper than 32 rows, under
//   at least 16 tiles of A. Each row's lines of a micro-panel then fall in the same L1 set
//   (and rows 8 KiB apart in a few of the L2's), so a panel read in place has left the caches
//   near the core before the next tile reads it again. On the model-167 Xeon, three rounds in
//   turns: 256x2048x256 0.85-0.90 x OpenBLAS in place against 0.99-1.03 packed, 256x4096x256
//   0.82-0.88 against 1.01-1.03, 128x1024x512 0.96-1.06 against 1.10-1.12; AVX2 256x2048x256
//   78-87 GFLOPS against 91-93. Under fewer tiles the copy is read too few times to pay
//   (AVX-512 64x1024x256 about the same; 32x1024x256 and the 10-class layer's 10x1024x128:tn
//   a third to a half slower packed), nor did shallower products gain (128x1024x16-32). Rows
//   1-3 KiB apart, packed at any depth, gained on some shapes but not on the default model's
//   128x256x128:tn (1.08-1.09 x OpenBLAS packed against 1.12-1.13 in place); on Intel's cores
//   the next rule packs them from a pass deep (DECISIONS 115).
// - On Intel's cores, B stored (k, n) at least a pass deep (Blocking::pack_b_from_depth) under
//   16 tiles of A, however far apart its rows: a panel read in place straddles sets of the L1
//   and comes from L2 for every tile. On the model-167 Xeon, three rounds in turns, 256x1000x784
//   0.81-0.82 x OpenBLAS in place against 0.98-0.99 packed, 200x600x300 0.93-0.96 against
//   1.06-1.09, 200x600x300:tn 0.85-0.87 against 0.93-0.94, 256^3 1.08-1.13 against 1.17-1.18;
//   AVX2 256x1000x784 80-84 GFLOPS against 89-92. Shallower, the default model's 128x256x128:tn
//   and 128x128x128:tn lost 3-6 % packed. No MLP's training product is that tall and deep with
//   B stored (k, n). AMD's cores, where entry 78 found B read in place faster in products larger
//   still, were not measured (DECISIONS 115).
inline constexpr std::size_t kAliasedRowFloats = 256;      // 1 KiB
inline constexpr std::size_t kAliasedRowsInL1 = 32;        // 4 sets x 8 ways, the smaller L1s
inline constexpr std::size_t kHalfAliasedRowFloats = 128;  // 512 B
inline constexpr std::size_t kHalfAliasedPanels = 16;      // B micro-panels that must reuse the copy
inline constexpr std::size_t kPageRowFloats = 1024;        // 4 KiB
inline constexpr std::size_t kPanelReaders = 16;           // A tiles that must reuse B's copy

template <class V, std::size_t MR, std::size_t NR>
Packing choose_packing(const MatmulArgs& args, const Blocking& blocking) {
  const auto [m, n, k] = args.shape;
  const bool large = m > 2 * blocking.mc;
  // Read in place, A would cost more than its copy: stored (k, m), or with rows far apart.
  const bool a_in_place_costly = args.ta == Transpose::kYes || args.lda >= blocking.pack_a_from_ld;
  const bool a_strided = args.ta == Transpose::kYes && k > kAliasedRowsInL1;
  const bool a_aliased = a_strided && (args.lda % kAliasedRowFloats == 0 ||
                                       (args.lda % kHalfAliasedRowFloats == 0 && n > kHalfAliasedPanels * NR));
  const bool b_in_place_costly = args.ldb >= blocking.pack_b_from_ld;
  const bool b_reread = m >= kPanelReaders * MR;
  const bool b_aliased = k > kAliasedRowsInL1 && args.ldb % kPageRowFloats == 0;
  const bool b_deep = blocking.pack_b_from_depth > 0 && k >= blocking.pack_b_from_depth;
  return {.a = (large && n > 4 * NR && a_in_place_costly) || a_aliased,
          .b = (large && b_in_place_costly) || args.tb == Transpose::kYes || (b_reread && (b_aliased || b_deep))};
}

// Asks for the cache lines of a C tile, (m_eff, n_eff) at c with row stride ldc, with intent
// to write, so that the loads and stores after a long pass find them in L1: in a large product
// C has left the caches near the core by the time each tile comes back to it (1024^3's C is
// 4 MiB, Zen 4's L2 1 MiB). Always inlined, as core::prefetch_lines is, and for its reason.
[[gnu::always_inline]] inline void prefetch_tile(const MicroTile& t) {
  for (std::size_t i = 0; i < t.m_eff; ++i) {
    core::prefetch_lines(t.c + i * t.ldc, t.n_eff * sizeof(float), core::PrefetchFor::kWrite);
  }
}

// The depth of each pass over K: kc, unless that would leave a last pass shallower than a
// quarter of kc; then K is spread evenly over one pass fewer, each a little deeper than kc.
// Every pass loads and stores each C tile once, which a last pass of 16 (the MLP's 784 =
// 3 x 256 + 16 for a kc of 256) spends on a sixteenth of a pass's work.
constexpr std::size_t pass_depth(std::size_t k, std::size_t kc) {
  const std::size_t full = k / kc;
  if (full == 0) return k;
  if (k % kc == 0 || k % kc >= kc / 4) return kc;
  return (k + full - 1) / full;
}

// Where every kernel cuts an element's sum over the depth: into sums of pass_depth(k,
// kSumDepth) products, each a chain of multiply-adds from zero in increasing p, added to C
// in order (the first to the bias, or to C when accumulating). The cut is the arithmetic's,
// not the cache's: the same for every kernel, so every kernel with a fused multiply-add
// (avx2, avx512, neon) gives the same bits, and avx2 and avx512 train the same checkpoint.
// 512 is the depth the AVX-512 kernel has always cut at, so its checkpoints kept their bits
// when the kernels with a kc of 256 (once cut at pass_depth(k, 256)) took the rule
// (DECISIONS 114).
inline constexpr std::size_t kSumDepth = 512;

// The splits every checkpoint's bits depend on: the MLPs' depths.
static_assert(pass_depth(784, kSumDepth) == 512);  // 512 + 272
static_assert(pass_depth(128, kSumDepth) == 128 && pass_depth(1024, kSumDepth) == 512);

// One pass of the blocked loops over the depth: [p0, p0 + depth), inside one of
// kSumDepth's sums. A product that starts C (not accumulating onto it, not storing Cᵀ) runs
// its first sum in passes of pass_depth(sum, kc), each tile's partial sums resting in C
// between them: the cache's cut, which moves no bits. Every other sum, which C's earlier sums
// leave no room to rest in, runs as one pass, up to kSumDepth deep whatever the kc.
struct DepthPass {
  std::size_t p0 = 0;
  std::size_t depth = 0;
  bool first_sum = false;  // in the sum that starts at p = 0 (the bias goes on, C is not added)
  bool resume = false;     // the sum's partial sums rest in C from the pass before
  bool rest = false;       // the sum goes on in the next pass
  bool last = false;       // the depth's last pass (the ReLU goes on)
};

template <class F>
[[gnu::always_inline]] inline void for_each_depth_pass(std::size_t k, std::size_t kc, bool split_first, F&& pass) {
  const std::size_t sum_depth = pass_depth(k, kSumDepth);
  for (std::size_t s0 = 0; s0 < k; s0 += sum_depth) {
    const std::size_t s1 = s0 + sum_depth < k ? s0 + sum_depth : k;
    const std::size_t piece = s0 == 0 && split_first ? pass_depth(s1 - s0, kc) : s1 - s0;
    for (std::size_t p0 = s0; p0 < s1; p0 += piece) {
      const std::size_t depth = piece < s1 - p0 ? piece : s1 - p0;
      pass(DepthPass{p0, depth, s0 == 0, p0 > s0, p0 + depth < s1, p0 + depth == k});
    }
  }
}

// The deepest of for_each_depth_pass's passes (the packing buffers' depth).
constexpr std::size_t deepest_pass(std::size_t k, std::size_t kc, bool split_first) {
  const std::size_t sum_depth = pass_depth(k, kSumDepth);  // no sum is deeper
  if (k > sum_depth) return sum_depth;
  return split_first ? pass_depth(k, kc) : k;
}
static_assert(deepest_pass(784, 512, true) == 512 && deepest_pass(784, 256, true) == 512);  // 256 + 256, 272
static_assert(deepest_pass(512, 256, true) == 256 && deepest_pass(512, 256, false) == 512);
static_assert(deepest_pass(300, 256, true) == 300);  // one pass, 1.17 kc

// The micro-kernel only as many registers wide as the tile's columns need (1..NV): a last
// panel narrower than NR (784 = 24 x 32 + 16 columns for the AVX-512 tile) would otherwise
// spend its empty registers' multiply-adds on padding (DECISIONS 61). Each element's sum is
// the same either way.
template <class V, std::size_t MR, bool kTransposedC, std::size_t... Nv>
void fitted_micro_kernel(const MicroTile& t, std::index_sequence<Nv...>) {
  const std::size_t registers = (t.n_eff + V::kLanes - 1) / V::kLanes;
  (void)((registers == Nv + 1 && (micro_kernel<V, MR, Nv + 1, kTransposedC>(t), true)) || ...);
}

// The blocked loops over op(A) op(B), with the epilogue (bias on the first pass over the
// depth, ReLU on the last) applied as each tile is stored. With kTransposedC they compute
// the transpose of C: args describe Cᵀ's product and the micro-kernel stores each tile
// transposed into args.c (tile element (i, j) at c[j * ldc + i]); the bias, C's columns,
// then runs along the tiles' rows.
template <class V, std::size_t MR, std::size_t NV, bool kTransposedC>
void gemm_blocked(const MatmulArgs& args, const Epilogue& epilogue, const Blocking& blocking) {
  constexpr std::size_t NR = NV * V::kLanes;
  const auto [m, n, k] = args.shape;
  const Packing packing = choose_packing<V, MR, NR>(args, blocking);
  const bool prefetch_c = !kTransposedC && blocking.prefetch_c_depth > 0 && m * n >= blocking.prefetch_c_floats;

  const bool split_first = !args.accumulate && !kTransposedC;
  const std::size_t kc_max = deepest_pass(k, blocking.kc, split_first);
  // A block's rows and a B panel's columns, rounded up to whole micro-panels.
  const std::size_t a_rows = round_up<V>(min_of<V>(blocking.mc, m), MR);
  const std::size_t b_cols = round_up<V>(min_of<V>(blocking.nc, n), NR);
  float* a_buf = packing.a ? pack_buffer(PackSlot::kA, a_rows * kc_max) : nullptr;  // (a_rows / MR, kc, MR)
  // In place, B still packs a last panel that ends inside a register: the micro-kernel reads
  // whole registers of each row (fitted_micro_kernel).
  float* b_buf = pack_buffer(PackSlot::kB, (packing.b ? b_cols : NR) * kc_max);  // (b_cols / NR, kc, NR)

  for (std::size_t jc = 0; jc < n; jc += blocking.nc) {
    const std::size_t nc = min_of<V>(blocking.nc, n - jc);
    for_each_depth_pass(k, blocking.kc, split_first, [&](const DepthPass& d) {
      const std::size_t pc = d.p0;
      const std::size_t kc = d.depth;
      // Read in place: every panel but a last one that ends inside a register.
      const std::size_t ragged = nc % NR % V::kLanes == 0 ? 0 : nc % NR;
      const std::size_t full_cols = packing.b ? 0 : nc - ragged;
      pack_b<V, NR>(args, pc, jc + full_cols, kc, nc - full_cols, b_buf);

      MicroTile t;
      t.kc = kc;
      t.ldc = args.ldc;
      t.accumulate = args.accumulate || !d.first_sum;
      const float* bias = d.first_sum ? epilogue.bias : nullptr;
      t.relu = epilogue.relu && d.last;
      t.resume = d.resume;
      t.rest = d.rest;
      for (std::size_t ic = 0; ic < m; ic += blocking.mc) {
        const std::size_t mc = min_of<V>(blocking.mc, m - ic);
        if (packing.a) pack_a<V, MR>(args, ic, pc, mc, kc, a_buf);

        for (std::size_t jr = 0; jr < nc; jr += NR) {
          t.n_eff = min_of<V>(NR, nc - jr);
          if (jr < full_cols) {
            t.b = args.b + pc * args.ldb + jc + jr;
            t.b_rs = args.ldb;
          } else {
            t.b = b_buf + (jr - full_cols) * kc;
            t.b_rs = packed_panel_width<V, NR>(t.n_eff);
          }
          for (std::size_t ir = 0; ir < mc; ir += MR) {
            t.m_eff = min_of<V>(MR, mc - ir);
            if (packing.a) {
              t.a = a_buf + ir * kc;
              t.a_rs = 1;
              t.a_cs = MR;
            } else if (args.ta == Transpose::kYes) {
              t.a = args.a + pc * args.lda + ic + ir;
              t.a_rs = 1;
              t.a_cs = args.lda;
            } else {
              t.a = args.a + (ic + ir) * args.lda + pc;
              t.a_rs = args.lda;
              t.a_cs = 1;
            }
            t.c = kTransposedC ? args.c + (jc + jr) * args.ldc + ic + ir : args.c + (ic + ir) * args.ldc + jc + jr;
            t.bias = bias == nullptr ? nullptr : kTransposedC ? bias + ic + ir : bias + jc + jr;
            if (prefetch_c && !d.rest && kc >= blocking.prefetch_c_depth) prefetch_tile(t);
            fitted_micro_kernel<V, MR, kTransposedC>(t, std::make_index_sequence<NV>{});
          }
        }
      }
    });
  }
}

// Whether to compute C = A·Bᵀ (both stored row-major) as Cᵀ = B·Aᵀ: the driver packs the
// transposed operand every call, and when C is wider than tall that is the larger one (the
// forward X·Wᵀ packs all of W for a batch of 64 rows). Cᵀ's product packs A instead and
// reads B in place; each element's products are summed in the same order either way, so
// the bits are the same. Only where Cᵀ's product does read B in place (choose_packing: for
// W of any height while the batch is at most 4 NR; a rule of at most 2 MC rows of W left a
// batch of 16 on 512 or 1024 outputs packing all of W, DECISIONS 61), where the
// micro-kernel can store transposed tiles (MR <= lanes), and for deep products: a transposed
// store costs a fixed amount per tile and depth pass, which a shallow product does not earn
// back (on Zen 4, 64x128x10:nt ran at 55 GFLOPS against 63-85 untransposed, 64x128x784:nt at
// a median 106 against 100 over five interleaved runs).
inline constexpr std::size_t kMinTransposedDepth = 256;

template <class V, std::size_t MR, std::size_t NR>
bool prefer_transposed(const MatmulArgs& args, const Blocking& blocking) {
  if constexpr (MR <= V::kLanes) {
    const auto [m, n, k] = args.shape;
    // Judged as if a large W were packed however close its rows: read in place through Cᵀ's
    // transposed stores (Blocking::pack_a_from_ld), it measured slower than the product of C
    // itself (200x600x300:nt 2.8 %, 300x1024x784:nt 1.3 %; DECISIONS 63).
    Blocking large_w_packed = blocking;
    large_w_packed.pack_a_from_ld = 0;
    return args.ta == Transpose::kNo && args.tb == Transpose::kYes && m < n && k >= kMinTransposedDepth &&
           !choose_packing<V, MR, NR>(transposed_problem(args), large_w_packed).a;
  }
  return false;
}

template <class V, std::size_t MR, std::size_t NV>
void gemm(const MatmulArgs& args, const Epilogue& epilogue, const Blocking& blocking) {
  if (matmul_degenerate(args, epilogue)) return;
  if constexpr (MR <= V::kLanes) {
    if (prefer_transposed<V, MR, NV * V::kLanes>(args, blocking))
      return gemm_blocked<V, MR, NV, true>(transposed_problem(args), epilogue, blocking);
  }
  gemm_blocked<V, MR, NV, false>(args, epilogue, blocking);
}

// C at most sizeof...(Rows) rows tall, the 10-class layer's weight gradient dYᵀ·X (or, with
// kTransposedC, Cᵀ of a C that narrow, transposed_problem): the blocked loops with a tile
// exactly m rows high, where m rounded up to MR wastes lanes (10 of 16 rows' work used).
// Every element's products are summed as in gemm_blocked, so the bits are the same.
template <class V, std::size_t NV, bool kTransposedC, std::size_t... Rows>
void gemm_short(const MatmulArgs& args, const Epilogue& epilogue, const Blocking& blocking,
                std::index_sequence<Rows...>) {
  const std::size_t m = args.shape.m;
  (void)((m == Rows + 1 && (gemm_blocked<V, Rows + 1, NV, kTransposedC>(args, epilogue, blocking), true)) || ...);
}

}  // namespace seatorch::kernels
