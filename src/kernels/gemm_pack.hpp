// How op(A) and op(B) become the micro-panels the GEMM driver's micro-kernel reads:
// contiguous, zero-padded, in the order of its loads, with the transposes absorbed on the
// way (Aᵀ·B and A·Bᵀ never materialise a transpose).
//
// Every template takes the ISA traits V first (see micro_kernel.hpp for why).
// Deliberately not here: when to pack rather than read in place (gemm_driver.hpp's
// choose_packing), the blocking, the buffers (gemm_support.hpp).
#pragma once

#include "seatorch/kernels/matmul.hpp"

#include <cstddef>
#include <cstring>

namespace seatorch::kernels {

template <class V>
constexpr std::size_t min_of(std::size_t x, std::size_t y) {
  return x < y ? x : y;
}

template <class V>
constexpr std::size_t round_up(std::size_t x, std::size_t step) {
  return (x + step - 1) / step * step;
}

// Copies the (rows, kc) block at src (row stride ld) transposed into dst (kc, R): dst[p * R
// + i] = src[i * ld + p], rows past `rows` zero. Panels go through registers in kLanes x
// kLanes blocks (V::transpose), the last, shorter depth block with masked loads, rows past
// `rows` as zero registers. A panel half a register wide (the AVX-512 tile's 8 rows) goes
// through V::transpose_half where V has it: each register comes out as two whole depths,
// for half the shuffles and stores of a block padded with zero rows (512^3 1 % faster on
// Zen 4, DECISIONS 63). Another panel narrower than a register (AVX2's 6 rows) is the top of
// a block whose other rows are zero: each of its stores spills past R floats into the next
// depth's, which the next store overwrites, and only the last is masked to stay inside dst.
// Element by element it cost 2-3 % of a 1024^3 product on Zen 4, and a batch of 16 packed
// into a 32-wide panel 9 % of a whole epoch's samples.
template <class V, std::size_t R>
void pack_transposed(const float* src, std::size_t ld, std::size_t rows, std::size_t kc, float* dst) {
  constexpr std::size_t kW = V::kLanes;
  constexpr bool kNarrow = R < kW;
  if constexpr (2 * R == kW && requires(typename V::Reg * r) { V::transpose_half(r); }) {
    // A panel half a register wide (the AVX-512 tile's 8 rows): R rows x kW depths per block,
    // each register afterwards two whole depths of the panel, adjacent in dst.
    for (std::size_t p = 0; p < kc; p += kW) {
      const std::size_t depth = min_of<V>(kW, kc - p);
      typename V::Reg block[R];
#pragma GCC unroll 16
      for (std::size_t l = 0; l < R; ++l) {
        const float* row = src + l * ld + p;
        block[l] = l >= rows ? V::zero() : depth == kW ? V::load(row) : V::load_n(row, depth);
      }
      V::transpose_half(block);
      for (std::size_t q = 0; 2 * q < depth; ++q) {
        float* out = dst + (p + 2 * q) * R;
        if (2 * q + 1 < depth) {
          V::store(out, block[q]);
        } else {
          V::store_n(out, block[q], R);
        }
      }
    }
  } else if constexpr (R % kW == 0 || kNarrow) {
    constexpr std::size_t kBlockRows = kNarrow ? R : kW;  // rows of the panel in one block
    for (std::size_t p = 0; p < kc; p += kW) {
      const std::size_t depth = min_of<V>(kW, kc - p);
#pragma GCC unroll 4
      for (std::size_t i0 = 0; i0 < R; i0 += kW) {
        typename V::Reg block[kW];
#pragma GCC unroll 16
        for (std::size_t l = 0; l < kW; ++l) {
          const float* row = src + (i0 + l) * ld + p;
          block[l] = l >= kBlockRows || i0 + l >= rows ? V::zero() : depth == kW ? V::load(row) : V::load_n(row, depth);
        }
        V::transpose(block);
        for (std::size_t l = 0; l < depth; ++l) {
          float* out = dst + (p + l) * R + i0;
          if (!kNarrow || p + l + 1 < kc) {
            V::store(out, block[l]);
          } else {
            V::store_n(out, block[l], R);
          }
        }
      }
    }
  } else {
    for (std::size_t p = 0; p < kc; ++p) {
      for (std::size_t i = 0; i < R; ++i) dst[p * R + i] = i < rows ? src[i * ld + p] : 0.0f;
    }
  }
}

// Copies `cols` floats from each of kc rows of src (row stride ld) into dst (kc, R), columns
// past `cols` zero.
template <class V, std::size_t R>
void pack_rows(const float* src, std::size_t ld, std::size_t cols, std::size_t kc, float* dst) {
  if (cols == R) {
    // A fixed-size copy: a few vector moves, where a variable-size memcpy would be a call.
    for (std::size_t p = 0; p < kc; ++p, src += ld, dst += R) std::memcpy(dst, src, R * sizeof(float));
  } else if constexpr (R % V::kLanes == 0) {
    // A partial panel (the last columns of C): one (masked) vector load per register.
    constexpr std::size_t kW = V::kLanes;
    for (std::size_t p = 0; p < kc; ++p, src += ld, dst += R) {
      for (std::size_t j = 0; j < R; j += kW) {
        const std::size_t n = cols > j ? min_of<V>(cols - j, kW) : 0;
        V::store(dst + j, n == kW ? V::load(src + j) : n > 0 ? V::load_n(src + j, n) : V::zero());
      }
    }
  } else {
    for (std::size_t p = 0; p < kc; ++p, src += ld, dst += R) {
      for (std::size_t j = 0; j < R; ++j) dst[j] = j < cols ? src[j] : 0.0f;
    }
  }
}

// Packs rows [i0, i0 + mc) and depth [p0, p0 + kc) of op(A) into MR-row micro-panels:
// panel r holds dst[r * MR * kc + p * MR + i] = op(A)(i0 + r * MR + i, p0 + p), rows past mc
// zero. Stored (k, m), A's rows are the panels' rows already; stored (m, k), it is transposed.
template <class V, std::size_t MR>
void pack_a(const MatmulArgs& args, std::size_t i0, std::size_t p0, std::size_t mc, std::size_t kc, float* dst) {
  for (std::size_t r0 = 0; r0 < mc; r0 += MR, dst += MR * kc) {
    const std::size_t rows = min_of<V>(MR, mc - r0);
    if (args.ta == Transpose::kYes) {
      pack_rows<V, MR>(args.a + p0 * args.lda + i0 + r0, args.lda, rows, kc, dst);
    } else {
      pack_transposed<V, MR>(args.a + (i0 + r0) * args.lda + p0, args.lda, rows, kc, dst);
    }
  }
}

// The width of a packed B micro-panel of `cols` columns: NR, but one register for a last
// panel that narrow, which is all its tile reads (fitted_micro_kernel) and half the copying.
template <class V, std::size_t NR>
constexpr std::size_t packed_panel_width(std::size_t cols) {
  return cols <= V::kLanes ? V::kLanes : NR;
}

// Packs depth [p0, p0 + kc) and columns [j, j + cols) of op(B) into one R-column micro-panel,
// dst (kc, R), columns past cols zero. Stored (k, n), B's rows are the panel's rows already;
// stored (n, k), it is transposed.
template <class V, std::size_t R>
void pack_b_panel(const MatmulArgs& args, std::size_t p0, std::size_t j, std::size_t kc, std::size_t cols, float* dst) {
  if (args.tb == Transpose::kNo) {
    pack_rows<V, R>(args.b + p0 * args.ldb + j, args.ldb, cols, kc, dst);
  } else {
    pack_transposed<V, R>(args.b + j * args.ldb + p0, args.ldb, cols, kc, dst);
  }
}

// Packs depth [p0, p0 + kc) and columns [j0, j0 + nc) of op(B) into micro-panels: panel s
// starts at dst + s * NR * kc and holds op(B)(p0 + p, j0 + s * NR + j) at p * width + j, its
// width packed_panel_width.
// B stored (k, n) is copied kPackRowsAtOnce rows of the block at a time, across every full
// panel. Panel by panel, the copy read NR floats of one row and jumped to the next (2-4 KiB
// on), and ran at a fraction of the memory's speed (on Zen 4, 3 % of a 1024^3 product's time
// for 4 MiB); row by row it read B as it lies (512^3 and 1024^3 1-1.7 % faster, DECISIONS 63)
// but wrote one line of each panel in turn, panels kc * NR floats apart: at 1024^3 every one
// of the 32 AVX-512 panels' lines falls in the same L1 and L2 sets. Eight rows at a time
// write each panel in runs of eight rows, lines in different sets, and still read each row
// of B in order: the copy's share of a 1024^3 product 1.3-1.4 -> 0.9-1.1 % of the samples on
// Zen 5, the product 1 % faster (DECISIONS 79).
inline constexpr std::size_t kPackRowsAtOnce = 8;

template <class V, std::size_t NR>
void pack_b(const MatmulArgs& args, std::size_t p0, std::size_t j0, std::size_t kc, std::size_t nc, float* dst) {
  if (args.tb == Transpose::kNo && nc >= NR) {
    const std::size_t full = nc / NR * NR;  // columns in full panels
    const float* src = args.b + p0 * args.ldb + j0;
    for (std::size_t q = 0; q < kc; q += kPackRowsAtOnce) {
      const std::size_t rows = min_of<V>(kPackRowsAtOnce, kc - q);
      for (std::size_t s0 = 0; s0 < full; s0 += NR) {
        const float* in = src + q * args.ldb + s0;
        float* out = dst + s0 * kc + q * NR;
        for (std::size_t p = 0; p < rows; ++p) std::memcpy(out + p * NR, in + p * args.ldb, NR * sizeof(float));
      }
    }
    j0 += full;
    nc -= full;
    dst += full * kc;
  }
  for (std::size_t s0 = 0; s0 < nc; s0 += NR, dst += NR * kc) {
    const std::size_t cols = min_of<V>(NR, nc - s0);
    if (packed_panel_width<V, NR>(cols) < NR) {
      pack_b_panel<V, V::kLanes>(args, p0, j0 + s0, kc, cols, dst);
    } else {
      pack_b_panel<V, NR>(args, p0, j0 + s0, kc, cols, dst);
    }
  }
}

}  // namespace seatorch::kernels
