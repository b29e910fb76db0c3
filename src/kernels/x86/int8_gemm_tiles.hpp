// The blocking shared by the x86 int8 gemm kernels, written once over an ISA policy:
//
//   struct Isa {
//     static constexpr std::size_t kRows;   // output rows per vector (int32 lanes)
//     static constexpr int kMR, kNR;        // register tile: kMR A rows x kNR row blocks
//     using Acc;                            // a vector of kRows int32 sums
//     using Act;                            // 4 activation bytes, prepared for dot()
//     static Acc zero();
//     static Act broadcast(std::uint32_t four_bytes);
//     static Acc load(const std::int8_t* block);       // kRows x 4 packed weights
//     static Acc dot(Acc acc, Act a, Acc b);           // acc[r] += sum_t a[t] * b[r][t]
//     static void store(std::int32_t* c, Acc acc, std::size_t count);  // first count lanes
//   };
//
// B is packed by pack_b_blocked(kRows) (int8_kernels_x86.hpp).
// Included only by the ISA files. Everything here has internal linkage (the unnamed
// namespace) and uses no standard-library templates, so no copy compiled with one file's
// ISA flags can be picked by the linker for code that runs on a CPU without that ISA.
#pragma once

#include "int8_kernels_x86.hpp"

#include <cstring>

namespace seatorch::kernels::x86 {
namespace {

// Bytes p4*4 .. p4*4+3 of an A row as one little-endian word, zero past k.
std::uint32_t four_bytes(const std::uint8_t* row, std::size_t p4, std::size_t k) {
  std::uint32_t v = 0;
  std::memcpy(&v, row + p4 * 4, k - p4 * 4 < 4 ? k - p4 * 4 : 4);
  return v;
}

// C rows i0 .. i0+MR-1, row blocks jb0 .. jb0+NR-1.
template <class Isa, int MR, int NR>
void tile(const Int8GemmArgs& g, std::size_t i0, std::size_t jb0) {
  constexpr std::size_t R = Isa::kRows;
  const std::size_t k4 = (g.k + 3) / 4;
  typename Isa::Acc acc[MR][NR];
  const std::int8_t* b[NR];
  for (int c = 0; c < NR; ++c) b[c] = g.packed_b + (jb0 + static_cast<std::size_t>(c)) * k4 * R * 4;
  for (int r = 0; r < MR; ++r) {
    for (int c = 0; c < NR; ++c) acc[r][c] = Isa::zero();
  }
  const std::uint8_t* a[MR];
  for (int r = 0; r < MR; ++r) a[r] = g.a + (i0 + static_cast<std::size_t>(r)) * g.lda;
  // Full groups of 4 bytes; plain loops over compile-time bounds keep every accumulator in a
  // register (a lambda here made GCC shuffle them through copies and the stack).
  const std::size_t full = g.k / 4;
  for (std::size_t p4 = 0; p4 < full; ++p4) {
    typename Isa::Acc bv[NR];
    for (int c = 0; c < NR; ++c) bv[c] = Isa::load(b[c] + p4 * R * 4);
    for (int r = 0; r < MR; ++r) {
      std::uint32_t four;
      std::memcpy(&four, a[r] + p4 * 4, 4);
      const typename Isa::Act av = Isa::broadcast(four);
      for (int c = 0; c < NR; ++c) acc[r][c] = Isa::dot(acc[r][c], av, bv[c]);
    }
  }
  if (full < k4) {  // the last 1..3 bytes, zero padded
    typename Isa::Acc bv[NR];
    for (int c = 0; c < NR; ++c) bv[c] = Isa::load(b[c] + full * R * 4);
    for (int r = 0; r < MR; ++r) {
      const typename Isa::Act av = Isa::broadcast(four_bytes(a[r], full, g.k));
      for (int c = 0; c < NR; ++c) acc[r][c] = Isa::dot(acc[r][c], av, bv[c]);
    }
  }
  for (int r = 0; r < MR; ++r) {
    for (int c = 0; c < NR; ++c) {
      const std::size_t j = (jb0 + static_cast<std::size_t>(c)) * R;
      Isa::store(g.c + (i0 + static_cast<std::size_t>(r)) * g.ldc + j, acc[r][c], g.n - j < R ? g.n - j : R);
    }
  }
}

// The last `rest` (< NR) row blocks, with a tile of exactly that width.
template <class Isa, int MR, int NR>
void tile_rest_n(const Int8GemmArgs& g, std::size_t i0, std::size_t jb0, std::size_t rest) {
  if constexpr (NR > 0) {
    if (rest == NR) return tile<Isa, MR, NR>(g, i0, jb0);
    tile_rest_n<Isa, MR, NR - 1>(g, i0, jb0, rest);
  }
}

template <class Isa, int MR>
void row_tile(const Int8GemmArgs& g, std::size_t i0) {
  const std::size_t blocks = (g.n + Isa::kRows - 1) / Isa::kRows;
  std::size_t jb = 0;
  for (; jb + Isa::kNR <= blocks; jb += Isa::kNR) tile<Isa, MR, Isa::kNR>(g, i0, jb);
  tile_rest_n<Isa, MR, Isa::kNR - 1>(g, i0, jb, blocks - jb);
}

template <class Isa, int MR>
void row_tile_rest(const Int8GemmArgs& g, std::size_t i0, std::size_t rest) {
  if constexpr (MR > 0) {
    if (rest == MR) return row_tile<Isa, MR>(g, i0);
    row_tile_rest<Isa, MR - 1>(g, i0, rest);
  }
}

template <class Isa>
void gemm_blocked(const Int8GemmArgs& g) {
  std::size_t i = 0;
  for (; i + Isa::kMR <= g.m; i += Isa::kMR) row_tile<Isa, Isa::kMR>(g, i);
  row_tile_rest<Isa, Isa::kMR - 1>(g, i, g.m - i);
}

}  // namespace
}  // namespace seatorch::kernels::x86
