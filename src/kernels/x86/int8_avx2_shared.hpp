// The 256-bit int8 steps that the AVX2 kernel (vpmaddwd) and the AVX-VNNI kernel (vpdpbusd on
// ymm) share: the requantization of 8 accumulators at a time, alone (requantize_avx2) or as
// the fused layer's epilogue, and the rest of their tile policies that is alike (YmmPolicy).
// Included only by those two ISA files, both compiled with at least -mavx2; internal
// linkage, as int8_gemm_tiles.hpp, for the same reason.
// Deliberately not here: the dot products, which are what the two kernels differ in.
#pragma once

#include "int8_gemm_tiles.hpp"

#include <immintrin.h>

#include <cstring>

namespace seatorch::kernels::x86 {
namespace {

// requantize() of 8 accumulators, as int8 in the low 8 bytes; the srdhm identity is written
// out above struct Columns in int8_kernels_avx512vnni.cpp.
inline __m128i requantize8(__m256i acc, const std::int32_t* multiplier, const std::int32_t* shift,
                           std::int32_t zero_point, bool relu) {
  auto load = [](const std::int32_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); };
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i nudge = _mm256_set1_epi64x(std::int64_t{1} << 30);
  const __m256i mult = load(multiplier);
  const __m256i s = load(shift);
  const __m256i even = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epi32(acc, mult), nudge), 31);
  const __m256i odd = _mm256_slli_epi64(
      _mm256_add_epi64(_mm256_mul_epi32(_mm256_srli_epi64(acc, 32), _mm256_srli_epi64(mult, 32)), nudge), 1);
  const __m256i high = _mm256_blend_epi32(even, odd, 0xAA);
  const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, s), one);
  const __m256i remainder = _mm256_and_si256(high, mask);
  const __m256i threshold = _mm256_sub_epi32(_mm256_srli_epi32(mask, 1), _mm256_srai_epi32(high, 31));
  // cmpgt gives -1 where the remainder rounds up.
  __m256i q = _mm256_sub_epi32(_mm256_srav_epi32(high, s), _mm256_cmpgt_epi32(remainder, threshold));
  q = _mm256_add_epi32(q, _mm256_set1_epi32(zero_point));
  q = _mm256_min_epi32(_mm256_max_epi32(q, _mm256_set1_epi32(relu ? zero_point : -128)), _mm256_set1_epi32(127));
  const __m128i q16 = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
  return _mm_packs_epi16(q16, q16);  // values are in [-128, 127]: no saturation
}

// The 8 outputs y (if wanted) and u = y + 128.
inline void store8(__m128i y8, std::int8_t* y, std::uint8_t* u) {
  if (y) _mm_storel_epi64(reinterpret_cast<__m128i*>(y), y8);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(u), _mm_xor_si128(y8, _mm_set1_epi8(static_cast<char>(0x80))));
}

// The last 1..7 outputs through the same code: accumulators, multipliers and shifts on
// zero-padded copies, the outputs to a scratch first.
struct Tail {
  std::int32_t acc[8] = {}, multiplier[8] = {}, shift[8] = {};
  std::int8_t y[8];
  std::uint8_t u[8];

  Tail(const std::int32_t* multipliers, const std::int32_t* shifts, std::size_t rest) {
    std::memcpy(multiplier, multipliers, rest * sizeof(std::int32_t));
    std::memcpy(shift, shifts, rest * sizeof(std::int32_t));
  }
  __m256i accumulators() const { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc)); }
  void copy_out(std::size_t rest, std::int8_t* y_out, std::uint8_t* u_out) const {
    if (y_out) std::memcpy(y_out, y, rest);
    std::memcpy(u_out, u, rest);
  }
};

// For each 8-bit mask, the lanes of its set bits in increasing order, a byte each, then
// zeros: the permutation that packs those lanes to the front (AVX2 has no compress).
struct PackedLanes {
  std::uint64_t of[256];  // (mask): 8 lane numbers, lane 0 in the low byte
};

constexpr PackedLanes packed_lanes() {
  PackedLanes t{};
  for (unsigned mask = 0; mask < 256; ++mask) {
    unsigned count = 0;
    for (unsigned lane = 0; lane < 8; ++lane) {
      if ((mask >> lane) & 1u) t.of[mask] |= std::uint64_t{lane} << (8 * count++);
    }
  }
  return t;
}

inline constexpr PackedLanes kPackedLanes = packed_lanes();

// The members of the tile's ISA policy (int8_gemm_tiles.hpp) that the two 256-bit kernels
// share: their accumulators are 8 int32 lanes, their weight blocks 32 bytes. Each kernel's
// policy derives from it and adds its own dot product, activations and tile.
struct YmmPolicy {
  using Acc = __m256i;

  static Acc zero() { return _mm256_setzero_si256(); }
  static Acc sub(Acc a, Acc b) { return _mm256_sub_epi32(a, b); }
  static Acc load(const std::int8_t* block) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block)); }

  // The mask of int32 lanes [0, n), n <= 8, for the masked loads of a short row.
  static __m256i first_lanes(std::size_t n) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }

  // Bit t: whether row[4t .. 4t+3] are not all zero, t < count <= 64.
  static std::uint64_t lit_bits(const std::uint8_t* row, std::size_t count) {
    std::uint64_t bits = 0;
    for (std::size_t t = 0; t < count; t += 8) {
      const std::size_t left = count - t;
      const __m256i lanes = first_lanes(left < 8 ? left : 8);
      const __m256i four = _mm256_maskload_epi32(reinterpret_cast<const int*>(row + t * 4), lanes);  // 8 groups
      const __m256i zero = _mm256_cmpeq_epi32(four, _mm256_setzero_si256());
      // The masked-off lanes read as zero, so they are never lit.
      bits |= std::uint64_t{~static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(zero))) & 0xFFu} << t;
    }
    return bits;
  }

  static std::size_t list_bits(std::uint64_t bits, std::uint32_t first, std::uint32_t step, std::uint32_t* out) {
    const __m256i lane_steps =
        _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(static_cast<int>(step)));
    std::size_t count = 0;
    for (std::uint32_t t = 0; t < 64; t += 8) {
      const auto lanes = static_cast<std::uint8_t>(bits >> t);
      if (lanes == 0) continue;
      const __m256i entries = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(first + t * step)), lane_steps);
      const __m256i order = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(static_cast<long long>(kPackedLanes.of[lanes])));
      // 8 lanes, kListSlack
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + count), _mm256_permutevar8x32_epi32(entries, order));
      count += static_cast<std::size_t>(__builtin_popcount(lanes));
    }
    return count;
  }

  // sum_i row[i] mod 2^32.
  static std::uint32_t sum_bytes(const std::uint8_t* row, std::size_t k) {
    __m256i sums = _mm256_setzero_si256();  // 4 partial sums, 64-bit
    std::size_t p = 0;
    for (; p + 32 <= k; p += 32) {
      const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + p));
      sums = _mm256_add_epi64(sums, _mm256_sad_epu8(bytes, _mm256_setzero_si256()));
    }
    alignas(32) std::uint64_t lanes[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), sums);
    std::uint64_t sum = lanes[0] + lanes[1] + lanes[2] + lanes[3];
    for (; p < k; ++p) sum += row[p];
    return static_cast<std::uint32_t>(sum);
  }

  // The fused layer's epilogue: the tile's sums are its accumulators already. Its loop and
  // tail repeat requantize_avx2's on purpose: one template for both, taking the accumulators
  // through lambdas, made this path 5-8 % slower (DECISIONS 55).
  static void requantize_rows(const RequantizeSums& t) {
    for (std::size_t r = 0; r < t.rows; ++r) {
      const std::int32_t* sums = t.sums + r * t.sums_stride;
      std::uint8_t* u = t.u + r * t.ldu;
      std::size_t j = 0;
      for (; j + 8 <= t.n; j += 8) {
        const __m256i acc = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(sums + j));
        store8(requantize8(acc, t.multiplier + j, t.shift + j, t.zero_point, t.relu), nullptr, u + j);
      }
      if (j == t.n) continue;
      const std::size_t rest = t.n - j;
      Tail tail(t.multiplier + j, t.shift + j, rest);
      std::memcpy(tail.acc, sums + j, rest * sizeof(std::int32_t));
      store8(requantize8(tail.accumulators(), tail.multiplier, tail.shift, t.zero_point, t.relu), tail.y, tail.u);
      tail.copy_out(rest, nullptr, u + j);
    }
  }
};

}  // namespace
}  // namespace seatorch::kernels::x86
