// What the AVX-512 int8 kernels share, all of it AVX-512F and BW: the requantization of 16
// accumulators at once (to the next layer's bytes, or to int8 as well for the requantize
// kernel), and a policy base, ZmmPolicy, for int8_gemm_tiles.hpp's tiles over 512-bit
// registers: the byte sums, the lit bits and their lists, the epilogue.
// Included only by the files compiled with at least -mavx512f -mavx512bw
// (int8_kernels_avx512bw.cpp, int8_kernels_avx512vnni.cpp). Deliberately not here: the
// multiply (vpmaddwd or vpdpbusd) and the layout of the sums it leaves, which each policy
// says itself.
#pragma once

#include "int8_gemm_tiles.hpp"

#include <immintrin.h>

namespace seatorch::kernels::x86 {
namespace {

// GCC 12 reports its own _mm512_undefined_epi32() (the pass-through of the unmasked 64-bit
// multiply and shifts) as "may be used uninitialized"; the value is never used.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

// requantize() on 16 lanes. srdhm(a, M) = floor((a * M + 2^30) / 2^31) for M > 0 (the
// truncating division of the scalar code with its sign-dependent nudge comes to exactly
// this), and only the low 32 bits of that shift are kept, so a logical 64-bit shift does.
// What depends only on the output column (its multiplier and shift, and the rounding half
// 2^(s-1) they imply) is one Columns, set up once per 16 columns and shared by every image's row.
struct Columns {
  __m512i multiplier, odd_multiplier, shift, half;

  Columns(const std::int32_t* multipliers, const std::int32_t* shifts, __mmask16 m) {
    const __m512i one = _mm512_set1_epi32(1);
    multiplier = _mm512_maskz_loadu_epi32(m, multipliers);
    odd_multiplier = _mm512_srli_epi64(multiplier, 32);
    shift = _mm512_maskz_loadu_epi32(m, shifts);
    half = _mm512_sllv_epi32(one, _mm512_sub_epi32(shift, one));  // 2^(s-1); for s = 0 the count wraps past 31: 0
  }
};

// The lower bound of a layer's outputs u = q + 128: 0 (q = -128), or for a ReLU layer its
// zero-point z + 128, which is 0 again for every ReLU layer the quantizer calibrates (its
// range starts at 0, so z = -128).
enum class Floor { kZero, kZeroPoint, kZeroPointAtZero };

template <Floor kFloor>
struct FloorTag {
  static constexpr Floor value = kFloor;
};

// Calls f with the FloorTag of a layer of zero-point z: the floor as a compile-time constant.
template <class F>
void with_floor(std::int32_t z, bool relu, F f) {
  if (!relu) return f(FloorTag<Floor::kZero>{});
  if (z == -128) return f(FloorTag<Floor::kZeroPointAtZero>{});
  f(FloorTag<Floor::kZeroPoint>{});
}

// The 16 accumulators requantized to u = q + 128, the next layer's unsigned bytes (as int32
// lanes, zero_point_u = z + 128), bounded below only: the upper bound, u = 255 (q = 127), is
// the unsigned saturation of the narrowing store, so it costs no instruction. No lane
// overflows: validate_int8_model's bias bound keeps |acc|, and so |q|, 255 below 2^31, and
// z + 128 is at most 255.
template <Floor kFloor>
[[gnu::always_inline]] inline __m512i requantize_lanes(__m512i acc, const Columns& c, __m512i zero_point_u) {
  const __m512i nudge = _mm512_set1_epi64(std::int64_t{1} << 30);
  // srdhm: bits 31..62 of each 64-bit product plus the nudge. The even lanes' product is
  // shifted down so that they land in the low half; the odd lanes' operands are moved down for
  // the 32x32->64 multiply, and a shift up by one puts those bits in the high half, in place.
  const __m512i even = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epi32(acc, c.multiplier), nudge), 31);
  const __m512i odd =
      _mm512_slli_epi64(_mm512_add_epi64(_mm512_mul_epi32(_mm512_srli_epi64(acc, 32), c.odd_multiplier), nudge), 1);
  const __m512i high = _mm512_mask_blend_epi32(static_cast<__mmask16>(0xAAAA), even, odd);
  // rounding_rshift rounds x / 2^s half away from zero: |q| = (|x| + 2^(s-1)) >> s, shifted as
  // unsigned, since |x| < 2^31 leaves no carry out. M > 0, so x has acc's sign or is 0 (whose
  // negation is 0): the sign of acc, known before the multiply, says where q = -|q|.
  const __m512i rounded = _mm512_add_epi32(_mm512_abs_epi32(high), c.half);
  const __m512i zero = _mm512_setzero_si512();
  if constexpr (kFloor == Floor::kZeroPointAtZero) {
    // max(q, 0): |q| where acc >= 0, else 0, in the shift itself.
    return _mm512_maskz_srlv_epi32(_mm512_cmpge_epi32_mask(acc, zero), rounded, c.shift);
  }
  const __m512i magnitude = _mm512_srlv_epi32(rounded, c.shift);
  if constexpr (kFloor == Floor::kZeroPoint) {
    // max(u, z + 128) is z + 128 + |q| where acc >= 0 and z + 128 elsewhere: one masked add.
    return _mm512_mask_add_epi32(zero_point_u, _mm512_cmpge_epi32_mask(acc, zero), zero_point_u, magnitude);
  }
  const __m512i u = _mm512_mask_sub_epi32(_mm512_add_epi32(zero_point_u, magnitude), _mm512_cmplt_epi32_mask(acc, zero),
                                          zero_point_u, magnitude);
  return _mm512_max_epi32(u, zero);
}

// The sum of 8 64-bit lanes (mod 2^64). Not _mm512_reduce_add_epi64: GCC 12 warns about its
// own undefined pass-through.
inline std::uint64_t sum_lanes(__m512i v) {
  alignas(64) std::uint64_t lanes[8];
  _mm512_store_si512(lanes, v);
  std::uint64_t sum = 0;
  for (const std::uint64_t lane : lanes) sum += lane;
  return sum;
}

__mmask16 lanes_of(std::size_t n, std::size_t j) {
  return n - j >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (n - j)) - 1u);
}

// The fused layer's epilogue (inlined into the tile): a tile's rows x n finished sums to u,
// columns outermost, so each block of 16 columns' constants serve all the rows. The fields
// are copied into locals first: the byte stores below may alias anything, so fields read
// through `t` would be reloaded after every store.
template <Floor kFloor>
[[gnu::always_inline]] inline void requantize_sums_as(const RequantizeSums& t) {
  const std::size_t n = t.n;
  const std::size_t rows = t.rows;
  const std::int32_t* const sums = t.sums;
  const std::size_t sums_stride = t.sums_stride;
  const std::int32_t* const multiplier = t.multiplier;
  const std::int32_t* const shift = t.shift;
  std::uint8_t* const u = t.u;
  const std::size_t ldu = t.ldu;
  const __m512i zero_point_u = _mm512_set1_epi32(t.zero_point + 128);
  for (std::size_t j = 0; j < n; j += 16) {
    const __mmask16 m = lanes_of(n, j);
    const Columns columns(multiplier + j, shift + j, m);
    for (std::size_t r = 0; r < rows; ++r) {
      const __m512i acc = _mm512_maskz_loadu_epi32(m, sums + r * sums_stride + j);
      // The narrowing store saturates at 255.
      _mm512_mask_cvtusepi32_storeu_epi8(u + r * ldu + j, m, requantize_lanes<kFloor>(acc, columns, zero_point_u));
    }
  }
}

[[gnu::always_inline]] inline void requantize_sums(const RequantizeSums& t) {
  with_floor(t.zero_point, t.relu, [&t](auto floor) { requantize_sums_as<decltype(floor)::value>(t); });
}

// The requantize kernel: one image's n accumulators from their three terms, and y if wanted.
template <Floor kFloor>
void requantize_row(const Int8RequantizeArgs& r) {
  const __m512i zero_point_u = _mm512_set1_epi32(r.zero_point + 128);
  for (std::size_t j = 0; j < r.n; j += 16) {
    const __mmask16 m = lanes_of(r.n, j);
    const __m512i acc = _mm512_sub_epi32(
        _mm512_add_epi32(_mm512_maskz_loadu_epi32(m, r.row_constant + j), _mm512_maskz_loadu_epi32(m, r.dots + j)),
        _mm512_set1_epi32(r.correction));
    const __m512i u = requantize_lanes<kFloor>(acc, Columns(r.multiplier + j, r.shift + j, m), zero_point_u);
    _mm512_mask_cvtusepi32_storeu_epi8(r.u + j, m, u);  // saturates at 255
    if (r.y) {
      // y = min(u, 255) - 128
      const __m512i y = _mm512_sub_epi32(_mm512_min_epi32(u, _mm512_set1_epi32(255)), _mm512_set1_epi32(128));
      _mm512_mask_cvtepi32_storeu_epi8(r.y + j, m, y);
    }
  }
}

// The members of an int8_gemm_tiles.hpp policy that do not depend on the multiply: every
// AVX-512 policy derives from it and adds its rows, tile, multiply and stores.
struct ZmmPolicy {
  using Acc = __m512i;

  static Acc zero() { return _mm512_setzero_si512(); }
  static Acc sub(Acc a, Acc b) { return _mm512_sub_epi32(a, b); }
  static Acc load(const std::int8_t* block) { return _mm512_loadu_si512(block); }

  static std::uint32_t sum_bytes(const std::uint8_t* row, std::size_t k) {
    const __m512i zero = _mm512_setzero_si512();
    __m512i sums = zero;  // 8 partial sums, 64-bit
    std::size_t p = 0;
    for (; p + 64 <= k; p += 64) sums = _mm512_add_epi64(sums, _mm512_sad_epu8(_mm512_loadu_si512(row + p), zero));
    if (p < k) {  // the masked-off bytes are not read
      const __mmask64 m = (std::uint64_t{1} << (k - p)) - 1;
      sums = _mm512_add_epi64(sums, _mm512_sad_epu8(_mm512_maskz_loadu_epi8(m, row + p), zero));
    }
    return static_cast<std::uint32_t>(sum_lanes(sums));
  }

  static void requantize_rows(const RequantizeSums& rows) { requantize_sums(rows); }

  static std::uint64_t lit_bits(const std::uint8_t* row, std::size_t count) {
    std::uint64_t bits = 0;
    for (std::size_t t = 0; t < count; t += 16) {
      const __m512i four = _mm512_maskz_loadu_epi32(lanes_of(count, t), row + t * 4);  // 16 groups
      bits |= std::uint64_t{_mm512_test_epi32_mask(four, four)} << t;
    }
    return bits;
  }

  static std::size_t list_bits(std::uint64_t bits, std::uint32_t first, std::uint32_t step, std::uint32_t* out) {
    const __m512i lane_steps =
        _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                           _mm512_set1_epi32(static_cast<int>(step)));
    std::size_t count = 0;
    for (std::uint32_t t = 0; t < 64; t += 16) {
      const auto lanes = static_cast<__mmask16>(bits >> t);
      const __m512i entries = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(first + t * step)), lane_steps);
      _mm512_storeu_si512(out + count, _mm512_maskz_compress_epi32(lanes, entries));  // 16 lanes, kListSlack
      count += static_cast<std::size_t>(__builtin_popcount(lanes));
    }
    return count;
  }
};

#pragma GCC diagnostic pop

}  // namespace
}  // namespace seatorch::kernels::x86
