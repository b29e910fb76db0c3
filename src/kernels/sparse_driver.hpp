// The sparse product's loops, written once for every ISA (sparse_matmul.hpp says what they
// compute): each row of A walks its nonzeros, and each nonzero multiplies one row of op(B)
// into the row's sum, held in registers.
//
//   for column block jb of op(B), NB = NV * lanes wide:   op(B)'s block packed (k, NB) if need be
//     for group of kSparseGroup rows of A:
//       for each pass over the depth (one of kSumDepth's sums, as the dense driver cuts them):
//         for each chunk of the pass (chunk_bytes of op(B)'s block, as the ISA chose):
//           for row i of the group:                       its pass sum in NV registers
//             acc += a(i, p) * op(B)(p, block) for the row's nonzeros p in the chunk
//         c = c + acc, each row's acc started from 0 at the pass's start
//           (c = bias + acc on the first pass of a biased product; clamped after the last)
//
// The passes, the zero start of each pass's sum and its addition to C are the dense
// driver's own (gemm_driver.hpp and micro_kernel.hpp), so each element is the same float
// operations less the multiply-adds of zeros. Rows of C transposed (a weight gradient of W
// held (out, in)) go through a tile of a group's rows on the stack and V::transpose.
//
// The compression that makes A from a dense matrix is here too: a register of a row at a
// time, its nonzeros moved to the front with V::compress where the ISA has it (AVX-512's
// vcompressps) and lane by lane otherwise.
//
// Every template takes the ISA traits V first (micro_kernel.hpp says why). Deliberately not
// here: threads (sparse_matmul.cpp), choosing between sparse and dense.
#pragma once

#include "gemm_driver.hpp"

#include "seatorch/kernels/sparse_matmul.hpp"

#include <cstddef>
#include <cstdint>
#include <utility>

namespace seatorch::kernels {

// The nonzeros of x, whose lane l is element first + l of a row, stored at column[0, n) and
// value[0, n); returns n. Whole registers may be stored: up to kLanes entries are written.
template <class V>
std::size_t compress_register(typename V::Reg x, std::size_t first, std::uint32_t* column, float* value) {
  if constexpr (requires { V::compress(x, std::uint32_t{0}, column, value); }) {
    return V::compress(x, static_cast<std::uint32_t>(first), column, value);
  } else {
    // Every lane written at the next free slot, the slot moved on only past a nonzero: no
    // branch on the data, which a digit's strokes would mispredict at every edge.
    alignas(64) float lanes[V::kLanes];
    V::store(lanes, x);
    std::size_t n = 0;
    for (std::size_t l = 0; l < V::kLanes; ++l) {
      column[n] = static_cast<std::uint32_t>(first + l);
      value[n] = lanes[l];
      n += lanes[l] != 0.0f ? 1 : 0;
    }
    return n;
  }
}

// compress_rows_ref's rows [i0, i1), a register at a time.
template <class V>
void compress_rows_loop(const float* a, std::size_t ld, std::size_t i0, std::size_t i1, SparseRows& out) {
  constexpr std::size_t kW = V::kLanes;
  for (std::size_t i = i0; i < i1; ++i) {
    const float* row = a + i * ld;
    const std::size_t first = out.begin(i);
    std::size_t e = first;
    for (std::size_t p = 0; p < out.cols; p += kW) {
      const std::size_t n = min_of<V>(kW, out.cols - p);
      const typename V::Reg x = n == kW ? V::load(row + p) : V::load_n(row + p, n);
      e += compress_register<V>(x, p, out.column.data() + e, out.value.data() + e);
    }
    out.count[i] = static_cast<std::uint32_t>(e - first);
  }
}

// Rows of A are multiplied kSparseGroup at a time, and a group may walk the depth in chunks
// of op(B)'s rows: every row's nonzeros in a chunk, then the next chunk, each row's pass sum
// waiting between chunks in a scratch row (kSparseGroup x 512 bytes at most). Each ISA says
// how many bytes of op(B)'s block a chunk holds (sparse_columns' chunk_bytes, 0: the whole
// pass at once), and why (the AVX-512 file; DECISIONS 72). Groups of 16 to 128 rows measured
// alike on Zen 5; 32 keeps the scratch rows to 16 KiB and the weight gradient's tile of a
// group, on the stack, as small.
inline constexpr std::size_t kSparseGroup = 32;

// Rows [i0, i1) of A (at most kSparseGroup) times op(B)'s column block (R registers, b row
// p at b + p * brs, every register readable), into the first `cols` floats of out's rows
// (row i at out + (i - i0) * ldo), added to what they hold when `accumulate`. Each pass's sum
// of a row starts from zero and is added to the row once, after the pass's last chunk: the
// dense driver's order, whatever the chunk. The epilogue is applied as the dense tile
// applies it (micro_kernel.hpp): without accumulate, the first pass's sums are added to the
// bias (the block's first `cols` entries) rather than to zero; the last pass's are clamped.
template <class V, std::size_t R>
void sparse_row_group(const SparseRows& a, std::size_t i0, std::size_t i1, const float* b, std::size_t brs,
                      std::size_t pass, std::size_t chunk, bool accumulate, const Epilogue& epilogue, float* out,
                      std::size_t ldo, std::size_t cols) {
  using Reg = typename V::Reg;
  constexpr std::size_t kW = V::kLanes;
  constexpr std::size_t kRow = R * kW;
  // (i1 - i0, kRow): pass sums between chunks, needed only where a pass has more than one chunk
  float* sums = chunk < pass ? pack_buffer(PackSlot::kA, kSparseGroup * kRow) : nullptr;
  std::size_t next[kSparseGroup];        // per row: its first entry not yet multiplied
  std::size_t pass_first[kSparseGroup];  // per row: its first entry in the current pass
  const std::uint32_t* column = a.column.data();
  const float* value = a.value.data();
  for (std::size_t i = i0; i < i1; ++i) next[i - i0] = a.begin(i);
  if (a.cols == 0) epilogue_without_product(epilogue, accumulate, out, ldo, i1 - i0, cols);  // no pass

  for (std::size_t p0 = 0; p0 < a.cols; p0 += pass) {
    const std::size_t p1 = min_of<V>(p0 + pass, a.cols);
    for (std::size_t i = 0; i < i1 - i0; ++i) pass_first[i] = next[i];
    for (std::size_t q0 = p0; q0 < p1; q0 += chunk) {
      const std::size_t q1 = min_of<V>(q0 + chunk, p1);
      const bool last = q1 == p1;
      for (std::size_t i = 0; i < i1 - i0; ++i) {
        std::size_t e = next[i];
        const std::size_t end = a.end(i0 + i);
        const bool started = e != pass_first[i];
        if (!last && (e == end || column[e] >= q1)) continue;  // nothing in this chunk
        float* sum = sums + i * kRow;
        Reg acc[R];
#pragma GCC unroll 16
        for (std::size_t r = 0; r < R; ++r) acc[r] = started ? V::load(sum + r * kW) : V::zero();
        for (; e < end && column[e] < q1; ++e) {
          const Reg x = V::broadcast(value + e);
          const float* row = b + column[e] * brs;
#pragma GCC unroll 16
          for (std::size_t r = 0; r < R; ++r) acc[r] = V::fma(x, V::load(row + r * kW), acc[r]);
        }
        next[i] = e;
        if (!last) {
#pragma GCC unroll 16
          for (std::size_t r = 0; r < R; ++r) V::store(sum + r * kW, acc[r]);
          continue;
        }
        float* c = out + i * ldo;
        // The sum starts from C (a later pass, or accumulate), the bias, or zero.
        const float* from = accumulate || p0 > 0 ? c : epilogue.bias;
        const bool relu = epilogue.relu && p1 == a.cols;
#pragma GCC unroll 16
        for (std::size_t r = 0; r < R; ++r) {
          const std::size_t j = r * kW;
          if (j + kW <= cols) {
            const Reg held = from != nullptr ? V::load(from + j) : V::zero();
            V::store(c + j, stored_value<V>(acc[r], &held, relu));
          } else if (j < cols) {
            const Reg held = from != nullptr ? V::load_n(from + j, cols - j) : V::zero();
            V::store_n(c + j, stored_value<V>(acc[r], &held, relu), cols - j);
          }
        }
      }
    }
  }
}

// Every row of A times op(B)'s columns [jb, jb + cols), R registers wide, into C.
template <class V, std::size_t R>
void sparse_block(const SparseMatmulArgs& args, const Epilogue& epilogue, const float* b, std::size_t brs,
                  std::size_t pass, std::size_t chunk_bytes, std::size_t jb, std::size_t cols) {
  constexpr std::size_t kW = V::kLanes;
  const SparseRows& a = *args.a;
  // Rows of op(B)'s block per chunk, at least one. No std::max here: a library template
  // instantiated in an ISA file could be the copy the linker keeps for baseline code.
  const std::size_t chunk_rows = chunk_bytes / (R * kW * sizeof(float));
  const std::size_t chunk = chunk_bytes == 0 ? pass : chunk_rows > 0 ? chunk_rows : 1;
  if (args.update != nullptr) {
    // Each group's rows on the stack, then to the update, which reads them from L1: the
    // gradient is never written to memory and read back (DECISIONS 103).
    alignas(64) float group[kSparseGroup][R * kW];  // (kSparseGroup, R * kW): the first `cols` of each row
    for (std::size_t i0 = 0; i0 < a.rows; i0 += kSparseGroup) {
      const std::size_t i1 = min_of<V>(i0 + kSparseGroup, a.rows);
      sparse_row_group<V, R>(a, i0, i1, b, brs, pass, chunk, false, {}, group[0], R * kW, cols);
      args.update->apply(group[0], R * kW, args.c + i0 * args.ldc + jb, args.ldc, i1 - i0, cols);
    }
    return;
  }
  if (!args.transposed_c) {
    for (std::size_t i0 = 0; i0 < a.rows; i0 += kSparseGroup) {
      const std::size_t i1 = min_of<V>(i0 + kSparseGroup, a.rows);
      sparse_row_group<V, R>(a, i0, i1, b, brs, pass, chunk, args.accumulate, epilogue, args.c + i0 * args.ldc + jb,
                             args.ldc, cols);
    }
    return;
  }
  // kSparseGroup rows of the product at a time, in a tile, then each kW x kW block of it
  // transposed into C: its columns are rows of C.
  static_assert(kSparseGroup % kW == 0);
  // (kSparseGroup, R * kW): rows [i0, i0 + kSparseGroup) of the block; zeroed once, so that
  // the lanes past `cols` that the transposes read are never uninitialized.
  alignas(64) float tile[kSparseGroup][R * kW] = {};
  for (std::size_t i0 = 0; i0 < a.rows; i0 += kSparseGroup) {
    const std::size_t rows = min_of<V>(kSparseGroup, a.rows - i0);
    if (args.accumulate) {
      for (std::size_t l = 0; l < rows; ++l) {
        for (std::size_t j = 0; j < cols; ++j) tile[l][j] = args.c[(jb + j) * args.ldc + i0 + l];
      }
    }
    sparse_row_group<V, R>(a, i0, i0 + rows, b, brs, pass, chunk, args.accumulate, {}, tile[0], R * kW, cols);
    for (std::size_t l0 = 0; l0 < rows; l0 += kW) {
      const std::size_t height = min_of<V>(kW, rows - l0);
      for (std::size_t r = 0; r < R && r * kW < cols; ++r) {
        typename V::Reg block[kW];
#pragma GCC unroll 16
        for (std::size_t l = 0; l < kW; ++l) block[l] = l < height ? V::load(tile[l0 + l] + r * kW) : V::zero();
        V::transpose(block);  // block[q]: column r * kW + q of the tile's rows l0.., a row of C
        for (std::size_t q = 0; q < kW && r * kW + q < cols; ++q) {
          float* c = args.c + (jb + r * kW + q) * args.ldc + i0 + l0;
          if (height == kW) {
            V::store(c, block[q]);
          } else {
            V::store_n(c, block[q], height);
          }
        }
      }
    }
  }
}

// The block R = 1..NV registers wide that `cols` columns need.
template <class V, std::size_t... Nv>
void fitted_sparse_block(const SparseMatmulArgs& args, const Epilogue& epilogue, const float* b, std::size_t brs,
                         std::size_t pass, std::size_t chunk_bytes, std::size_t jb, std::size_t cols,
                         std::index_sequence<Nv...>) {
  const std::size_t registers = (cols + V::kLanes - 1) / V::kLanes;
  (void)((registers == Nv + 1 &&
          (sparse_block<V, Nv + 1>(args, epilogue, b, brs, pass, chunk_bytes, jb, cols), true)) ||
         ...);
}

// The bytes of an NV-register column block that `depth` of op(B)'s rows hold. The kernels
// with a kc of 256 walk each sum of 512 in chunks of kc rows: the block their passes held
// before every kernel cut its sums at 512 (DECISIONS 114).
template <class V, std::size_t NV>
constexpr std::size_t chunk_bytes_of_depth(std::size_t depth) {
  return depth * NV * V::kLanes * sizeof(float);
}

// How far apart, in floats, op(B)'s rows may be and still be read in place, unless an ISA
// says otherwise: 1 KiB. On Zen 5 under `avx2` the forward through Wᵀ rows 512 B apart read
// in place as fast as packed (49 against 51 us, batch 64), 1 KiB apart 241 against 197 us
// (batch 128; DECISIONS 83). NEON and the portable kernel take it unmeasured; `avx512`, whose
// chunks keep a block in L1, reads rows up to 2 KiB apart in place.
inline constexpr std::size_t kSparsePackFromLd = 256;

// The product, in column blocks NV registers wide, each pass over the depth walked in chunks
// of chunk_bytes of the block's rows (0: each pass in one go), with the epilogue (C not
// transposed, not accumulated). op(B) is read in place when it is stored (k, n), its rows
// are under pack_from_ld floats apart (kSparsePackFromLd unless the ISA says otherwise: rows
// far apart put a block's lines in few of the L1's sets) and the block ends on a whole
// register; otherwise the block is packed (k, NB), zero-padded, as the dense driver packs a
// B micro-panel.
template <class V, std::size_t NV>
void sparse_columns(const SparseMatmulArgs& args, const Epilogue& epilogue, std::size_t chunk_bytes,
                    std::size_t pack_from_ld) {
  constexpr std::size_t kNb = NV * V::kLanes;
  const std::size_t k = args.a->cols;
  const std::size_t pass = k == 0 ? 1 : pass_depth(k, kSumDepth);
  MatmulArgs b_view;  // op(B) as pack_b_panel reads it
  b_view.b = args.b;
  b_view.ldb = args.ldb;
  b_view.tb = args.tb;
  for (std::size_t jb = 0; jb < args.n; jb += kNb) {
    const std::size_t cols = min_of<V>(kNb, args.n - jb);
    const float* b = args.b + jb;
    std::size_t brs = args.ldb;
    if (args.tb == Transpose::kYes || args.ldb >= pack_from_ld || cols % V::kLanes != 0) {
      float* packed = pack_buffer(PackSlot::kB, k * kNb);  // (k, kNb)
      pack_b_panel<V, kNb>(b_view, 0, jb, k, cols, packed);
      b = packed;
      brs = kNb;
    }
    fitted_sparse_block<V>(args, epilogue.from_column(jb), b, brs, pass, chunk_bytes, jb, cols,
                           std::make_index_sequence<NV>{});
  }
}

}  // namespace seatorch::kernels
