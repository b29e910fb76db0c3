// The register-blocked micro-kernel, written once for every ISA.
//
// It updates one MR x NR tile of C with the product of an MR x kc panel of A and a kc x NR
// panel of B, keeping the whole tile in MR * NV vector registers (NR = NV * lanes): per
// step p it loads NV vectors of B's row p, broadcasts each of the MR values of A's column p
// and issues MR * NV fused multiply-adds. The vector operations come from a traits type V
// (one per ISA, in src/kernels/<arch>/ or the portable src/kernels/blocked.cpp):
//
//   V::Reg, V::kLanes, zero(), load(p), load_n(p, n), broadcast(p), fma(a, b, c) = a*b + c,
//   add(a, b), store(p, r), store_n(p, r, n)        (the _n forms touch only n < kLanes lanes)
//   relu(x): each lane as std::max(x, 0.0f) gives it (a NaN kept, -0 kept as -0)
//   transpose(r): transposes the kLanes x kLanes block held in r[0..kLanes) (packing uses it)
//   transpose_half(r), optional: the (kLanes / 2) x kLanes block in r[0..kLanes / 2), each
//     register afterwards two columns (gemm_pack.hpp's pack_transposed)
//   compress(x, first, column, value), optional: x's nonzero lanes and their indices first + l
//     stored at the front of value and column, returning how many (sparse_driver.hpp)
//
// Every template here takes V first. Each ISA defines its V in an anonymous namespace, so
// every instantiation has internal linkage and is compiled only with its own file's ISA
// flags: an AVX-512 copy can never be picked by the linker for a baseline caller.
// Deliberately not here: packing (gemm_pack.hpp), blocking and edge planning (gemm_driver.hpp),
// intrinsics.
#pragma once

#include <cstddef>

namespace seatorch::kernels {

// The operands of one micro-tile. Operands are addressed through strides, so the same code
// reads packed panels and (where the driver allows it) the caller's matrices in place.
struct MicroTile {
  std::size_t kc = 0;        // depth of the update, >= 1
  const float* a = nullptr;  // A panel, (MR, kc): element (i, p) at a[i * a_rs + p * a_cs]
  std::size_t a_rs = 0;
  std::size_t a_cs = 0;
  const float* b = nullptr;  // B panel, (kc, NR): element (p, j) at b[p * b_rs + j];
  std::size_t b_rs = 0;      //   all NR floats of each row must be readable
  float* c = nullptr;        // C tile, (m_eff, n_eff): element (i, j) at c[i * ldc + j]
  std::size_t ldc = 0;
  std::size_t m_eff = 0;    // rows of the tile inside C, 1..MR (A rows past it are not read)
  std::size_t n_eff = 0;    // columns of the tile inside C, 1..NR
  bool accumulate = false;  // C += A*B rather than C = A*B
  // The Epilogue (matmul.hpp), applied as the tile is stored. Without accumulate, C starts
  // from the bias rather than from zero: bias[j] for the tile's column j (for a transposed
  // tile, bias[i] for its row i, a column of C); the driver passes it for a product's first
  // sum over the depth only, which a resting pass leaves alone. relu clamps C at zero as
  // stored: the last pass only.
  const float* bias = nullptr;
  bool relu = false;
  // A product's first sum cut into several passes (gemm_driver.hpp's for_each_depth_pass):
  // between them the tile's partial sums rest in C itself (never transposed, never
  // accumulating). With resume the tile's sums start from them rather than from zero; with
  // rest they are stored as they are, the bias and the clamp left to the sum's last pass.
  bool resume = false;
  bool rest = false;
};

// What a tile stores at one register of C: acc added to what C holds (accumulate) or to the
// bias (`start`, null when there is none), then clamped at zero when asked. The additions
// are the unfused epilogue's, C holding the bias (epilogue_rows.hpp), in its operand order.
template <class V>
[[gnu::always_inline]] inline typename V::Reg stored_value(typename V::Reg acc, const typename V::Reg* start,
                                                           bool relu) {
  const typename V::Reg sum = start != nullptr ? V::add(*start, acc) : acc;
  return relu ? V::relu(sum) : sum;
}

// The partial sums a pass left in C, loaded into the (MR, NV * lanes) tile acc; registers
// past m_eff and n_eff keep what they hold (they are never stored).
template <class V, std::size_t MR, std::size_t NV>
[[gnu::always_inline]] inline void load_partial(const MicroTile& t, typename V::Reg (&acc)[MR][NV]) {
  constexpr std::size_t kW = V::kLanes;
#pragma GCC unroll 32
  for (std::size_t i = 0; i < MR; ++i) {
    if (i >= t.m_eff) break;
    const float* row = t.c + i * t.ldc;
#pragma GCC unroll 8
    for (std::size_t v = 0; v < NV; ++v) {
      const std::size_t j = v * kW;
      if (j + kW <= t.n_eff) {
        acc[i][v] = V::load(row + j);
      } else if (j < t.n_eff) {
        acc[i][v] = V::load_n(row + j, t.n_eff - j);
      }
    }
  }
}

// Stores the (MR, NV * lanes) tile acc into C, rows past m_eff and columns past n_eff left
// alone. kEpilogue false: the plain product (t.bias and t.relu unused).
template <class V, std::size_t MR, std::size_t NV, bool kEpilogue>
[[gnu::always_inline]] inline void store_tile(const MicroTile& t, const typename V::Reg (&acc)[MR][NV]) {
  using Reg = typename V::Reg;
  constexpr std::size_t kW = V::kLanes;
  const bool relu = kEpilogue && t.relu;
  // Where each row's sum starts: C itself, the bias row, or nothing (the product alone).
  const float* start_row = kEpilogue && !t.accumulate ? t.bias : nullptr;
#pragma GCC unroll 32
  for (std::size_t i = 0; i < MR; ++i) {
    if (i >= t.m_eff) break;
    float* c_row = t.c + i * t.ldc;
    const float* from = t.accumulate ? c_row : start_row;
#pragma GCC unroll 8
    for (std::size_t v = 0; v < NV; ++v) {
      const std::size_t j = v * kW;
      if (j + kW <= t.n_eff) {
        const Reg held = from != nullptr ? V::load(from + j) : V::zero();
        V::store(c_row + j, stored_value<V>(acc[i][v], from != nullptr ? &held : nullptr, relu));
      } else if (j < t.n_eff) {
        const std::size_t n = t.n_eff - j;
        const Reg held = from != nullptr ? V::load_n(from + j, n) : V::zero();
        V::store_n(c_row + j, stored_value<V>(acc[i][v], from != nullptr ? &held : nullptr, relu), n);
      }
    }
  }
}

// With kTransposedC the tile is Cᵀ: tile element (i, j) goes to c[j * ldc + i], written
// through V::transpose, one kLanes x kLanes block per vector column (MR <= kLanes); only
// its first m_eff rows are stored.
//
// A function of its own, never inlined into the driver: inlined, GCC 12 allocated the AVX2
// tile's registers across the driver's whole loop nest, kept two of the six A row addresses
// on the stack and stepped them there every depth step, a chain through memory that held
// the tile to 81-88 % of the peak (`bench matmul --kernel avx2` on Zen 4, 256^3 to 1024^3).
// On its own it keeps every address in a register. A call per tile costs a few cycles
// against the tile's kc x MR x NV multiply-adds (DECISIONS 62).
template <class V, std::size_t MR, std::size_t NV, bool kTransposedC = false>
[[gnu::noinline]] void micro_kernel(const MicroTile& t) {
  using Reg = typename V::Reg;
  constexpr std::size_t kW = V::kLanes;

  Reg acc[MR][NV];         // the C tile, (MR, NV * kW), in registers
  const float* a_row[MR];  // start of each row of the A panel
#pragma GCC unroll 32
  for (std::size_t i = 0; i < MR; ++i) {
    // Rows past the edge of C re-read the last valid row: always in bounds, never stored.
    a_row[i] = t.a + (i < t.m_eff ? i : t.m_eff - 1) * t.a_rs;
#pragma GCC unroll 8
    for (std::size_t v = 0; v < NV; ++v) acc[i][v] = V::zero();
  }
  if constexpr (!kTransposedC) {  // only a first sum rests, in C as it is (never transposed)
    if (t.resume) load_partial<V>(t, acc);
  }

  const float* b = t.b;
  std::size_t a_off = 0;
  for (std::size_t p = 0; p < t.kc; ++p) {
    Reg bv[NV];
#pragma GCC unroll 8
    for (std::size_t v = 0; v < NV; ++v) bv[v] = V::load(b + v * kW);
#pragma GCC unroll 32
    for (std::size_t i = 0; i < MR; ++i) {
      const Reg ai = V::broadcast(a_row[i] + a_off);
#pragma GCC unroll 8
      for (std::size_t v = 0; v < NV; ++v) acc[i][v] = V::fma(ai, bv[v], acc[i][v]);
    }
    b += t.b_rs;
    a_off += t.a_cs;
  }

  if constexpr (!kTransposedC) {
    if (t.rest) {
      store_tile<V, MR, NV, false>(t, acc);
      return;
    }
  }

  if constexpr (kTransposedC) {
    static_assert(MR <= kW, "a transposed tile is written in kLanes x kLanes blocks");
    // The bias of C's columns, one per row of the tile, added before the transpose: each
    // element gets bias + acc either way.
    const bool biased = !t.accumulate && t.bias != nullptr;
#pragma GCC unroll 8
    for (std::size_t v = 0; v < NV; ++v) {
      Reg block[kW];
#pragma GCC unroll 16
      for (std::size_t l = 0; l < kW; ++l) {
        if (l >= MR) {
          block[l] = V::zero();
        } else if (biased && l < t.m_eff) {
          block[l] = V::add(V::broadcast(t.bias + l), acc[l][v]);
        } else {
          block[l] = acc[l][v];
        }
      }
      V::transpose(block);  // block[q]: column v * kW + q of the tile, i.e. a row of C
      for (std::size_t q = 0; q < kW && v * kW + q < t.n_eff; ++q) {
        float* c_row = t.c + (v * kW + q) * t.ldc;
        if (MR == kW && t.m_eff == kW) {
          const Reg held = t.accumulate ? V::load(c_row) : V::zero();
          V::store(c_row, stored_value<V>(block[q], t.accumulate ? &held : nullptr, t.relu));
        } else {
          const Reg held = t.accumulate ? V::load_n(c_row, t.m_eff) : V::zero();
          V::store_n(c_row, stored_value<V>(block[q], t.accumulate ? &held : nullptr, t.relu), t.m_eff);
        }
      }
    }
    return;
  }

  // The plain product's stores compiled apart from the epilogue's: with the epilogue's
  // choices in them, the 256^3 and 512^3 products ran 1-2 % slower (DECISIONS 82).
  if (t.bias == nullptr && !t.relu) {
    store_tile<V, MR, NV, false>(t, acc);
  } else {
    store_tile<V, MR, NV, true>(t, acc);
  }
}

}  // namespace seatorch::kernels
