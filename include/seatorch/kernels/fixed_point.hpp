// The integer arithmetic of seatorch's INT8 inference, specified once (docs/QUANTIZATION.md)
// and implemented once, here. The C++ integer model, its SIMD paths and the Mini NPU's
// requantization unit (rtl/) must all produce exactly these values.
//
// Requantization follows gemmlowp/TFLite: a real multiplier m in (0, 1) is represented as
// m = M * 2^-31 * 2^-shift with M in [2^30, 2^31) and shift in [0, 31]; then
//   q_out = clamp(z_out + rounding_rshift(srdhm(acc, M), shift), lo, 127)
// with lo = z_out for a ReLU layer (ReLU is the clamp) and -128 otherwise.
// Deliberately no floating point in anything below except quantize_multiplier(), which
// runs once at quantization time, never during inference.
#pragma once

#include <cstdint>
#include <limits>

namespace seatorch::kernels {

// Saturating rounding doubling high multiply: round(a * b / 2^31), saturating the single
// overflow case a == b == INT32_MIN. Exact ties round toward +infinity (0.5 -> 1 but
// -0.5 -> 0, -1.5 -> -1): the truncating division with its sign-dependent nudge equals
// floor((a * b + 2^30) / 2^31), which is also what NEON's vqrdmulh computes.
constexpr std::int32_t srdhm(std::int32_t a, std::int32_t b) {
  if (a == std::numeric_limits<std::int32_t>::min() && b == a) {
    return std::numeric_limits<std::int32_t>::max();
  }
  const std::int64_t ab = static_cast<std::int64_t>(a) * static_cast<std::int64_t>(b);
  const std::int64_t nudge = ab >= 0 ? (std::int64_t{1} << 30) : (1 - (std::int64_t{1} << 30));
  return static_cast<std::int32_t>((ab + nudge) / (std::int64_t{1} << 31));  // truncates toward 0
}

// x / 2^shift rounded to nearest, ties away from zero (gemmlowp's RoundingDivideByPOT).
// shift in [0, 31]; >> on a negative int32 is an arithmetic shift (guaranteed by C++20).
constexpr std::int32_t rounding_rshift(std::int32_t x, int shift) {
  const std::int32_t mask = static_cast<std::int32_t>((std::int64_t{1} << shift) - 1);
  const std::int32_t remainder = x & mask;
  const std::int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> shift) + (remainder > threshold ? 1 : 0);
}

// One output of a layer: int32 accumulator -> int8.
constexpr std::int8_t requantize(std::int32_t acc, std::int32_t multiplier, int shift, std::int32_t zero_point_out,
                                 bool relu) {
  // The sum in 64 bits (the NPU uses 34): z_out plus a shifted product near +-2^31 would
  // overflow int32, and the clamp must see the exact value.
  std::int64_t q = std::int64_t{zero_point_out} + rounding_rshift(srdhm(acc, multiplier), shift);
  const std::int64_t lo = relu ? zero_point_out : -128;
  if (q < lo) q = lo;
  if (q > 127) q = 127;
  return static_cast<std::int8_t>(q);
}

struct QuantizedMultiplier {
  std::int32_t multiplier = 0;  // in [2^30, 2^31)
  int shift = 0;                // in [0, 31]
};

// Represents a real multiplier in (0, 1) as M * 2^-31 * 2^-shift. Throws InputError when
// `real` is outside (0, 1) or too small to represent (below 2^-32).
QuantizedMultiplier quantize_multiplier(double real);

}  // namespace seatorch::kernels
