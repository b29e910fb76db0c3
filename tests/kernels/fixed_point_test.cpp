// The fixed-point primitives against the specification (fixed_point.hpp, docs/QUANTIZATION.md
// section 3) evaluated independently in exact __int128 arithmetic with an explicit floor
// division, pinned exact ties of both rounding rules, and gemmlowp's documented edge cases.
#include "seatorch/kernels/fixed_point.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/core/rng.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

namespace q = seatorch::kernels;

namespace {

__extension__ typedef __int128 i128;  // exact for every product of two int32 and more

// floor(num / den) for den > 0: C++ division truncates toward zero, so step down once when a
// negative quotient left a remainder.
i128 floor_div(i128 num, i128 den) {
  const i128 t = num / den;
  return (num % den != 0 && num < 0) ? t - 1 : t;
}

// srdhm's specification: round(a * b / 2^31) to nearest, exact ties toward +infinity, that is
// floor(a * b / 2^31 + 1/2) = floor((2 a b + 2^31) / 2^32); INT32_MIN * INT32_MIN saturates.
std::int64_t srdhm_oracle(std::int32_t a, std::int32_t b) {
  if (a == std::numeric_limits<std::int32_t>::min() && b == a) return std::numeric_limits<std::int32_t>::max();
  return static_cast<std::int64_t>(floor_div(2 * i128{a} * b + (i128{1} << 31), i128{1} << 32));
}

// rounding_rshift's specification: x / 2^shift to nearest, exact ties away from zero, that is
// sign(x) * floor(|x| / 2^shift + 1/2).
std::int64_t rounding_rshift_oracle(std::int32_t x, int shift) {
  const i128 mag = x < 0 ? -i128{x} : i128{x};
  const i128 r = floor_div(2 * mag + (i128{1} << shift), i128{1} << (shift + 1));
  return static_cast<std::int64_t>(x < 0 ? -r : r);
}

// An operand in [2^30, 2^31), like a quantized multiplier.
std::int32_t random_multiplier(seatorch::core::Rng& rng) {
  return static_cast<std::int32_t>((rng.next_u64() >> 33) | (std::uint64_t{1} << 30));
}

// a and b with a * b = (2m + 1) * 2^30 exactly, so a * b / 2^31 = m + 1/2: an exact tie of
// srdhm. a = odd * 2^k, b = odd * 2^(30 - k), either sign; ties are rare in random data.
std::pair<std::int32_t, std::int32_t> random_srdhm_tie(seatorch::core::Rng& rng) {
  const int k = static_cast<int>(rng.below(31));
  const auto odd_below = [&](int bits) {  // an odd magnitude below 2^bits, random sign
    const std::int64_t m = static_cast<std::int64_t>(rng.below(std::uint64_t{1} << (bits - 1))) * 2 + 1;
    return rng.below(2) ? -m : m;
  };
  const std::int64_t a = odd_below(31 - k) << k;
  const std::int64_t b = odd_below(k + 1) << (30 - k);
  return {static_cast<std::int32_t>(a), static_cast<std::int32_t>(b)};
}

// Whether a * b / 2^31 is exactly halfway between two integers: a * b an odd multiple of 2^30.
bool is_srdhm_tie(std::int32_t a, std::int32_t b) {
  const i128 ab = i128{a} * b;
  return ab % (i128{1} << 30) == 0 && (ab / (i128{1} << 30)) % 2 != 0;
}

}  // namespace

TEST_CASE("srdhm is round(a*b/2^31) with exact ties toward +infinity", "[quant]") {
  seatorch::core::Rng rng(11);
  for (int i = 0; i < 200000; ++i) {
    const auto a = static_cast<std::int32_t>(rng.next_u64());
    const std::int32_t b = i < 100000 ? random_multiplier(rng) : static_cast<std::int32_t>(rng.next_u64());
    INFO("a = " << a << ", b = " << b << ": srdhm " << q::srdhm(a, b) << ", exact " << srdhm_oracle(a, b));
    REQUIRE(q::srdhm(a, b) == srdhm_oracle(a, b));
  }
  for (int i = 0; i < 100000; ++i) {
    const auto [a, b] = random_srdhm_tie(rng);
    REQUIRE(is_srdhm_tie(a, b));
    INFO("tie a = " << a << ", b = " << b << ": srdhm " << q::srdhm(a, b) << ", exact " << srdhm_oracle(a, b));
    REQUIRE(q::srdhm(a, b) == srdhm_oracle(a, b));
  }
  constexpr auto kMin = std::numeric_limits<std::int32_t>::min();
  constexpr auto kMax = std::numeric_limits<std::int32_t>::max();
  CHECK(q::srdhm(kMin, kMin) == kMax);
  CHECK(q::srdhm(1 << 30, 1 << 30) == 1 << 29);
  CHECK(q::srdhm(kMin, kMax) == -kMax);  // -(2^31 - 1) exactly: no rounding
  CHECK(q::srdhm(kMax, kMin) == -kMax);
}

TEST_CASE("srdhm rounds exact ties toward +infinity", "[quant]") {
  // a * b / 2^31 = -0.5, -1.5, 0.5, 1.5, ...: hand-picked ties, each written as its exact
  // quotient and the value the specification gives (ties away from zero would differ on
  // every negative one); the SIMD requantization and the NPU rely on
  // floor((a * b + 2^30) / 2^31).
  CHECK(q::srdhm(-1, 1 << 30) == 0);                     // -0.5 -> 0
  CHECK(q::srdhm(1, -(1 << 30)) == 0);                   // -0.5 -> 0, the sign on b
  CHECK(q::srdhm(-3, 1 << 30) == -1);                    // -1.5 -> -1
  CHECK(q::srdhm(3, -(1 << 30)) == -1);                  // -1.5 -> -1
  CHECK(q::srdhm(-5, 1 << 30) == -2);                    // -2.5 -> -2
  CHECK(q::srdhm(1, 1 << 30) == 1);                      // 0.5 -> 1
  CHECK(q::srdhm(-1, -(1 << 30)) == 1);                  // 0.5 -> 1
  CHECK(q::srdhm(3, 1 << 30) == 2);                      // 1.5 -> 2
  CHECK(q::srdhm(-49380, 3 << 28) == -18517);            // -12345 * 4 * 3 * 2^28 / 2^31 = -18517.5
  CHECK(q::srdhm(49380, 3 << 28) == 18518);              // 18517.5
  CHECK(q::srdhm(-2147483647, 1 << 30) == -1073741823);  // -(2^31 - 1) / 2 = -1073741823.5
  CHECK(q::srdhm(2147483647, 1 << 30) == 1073741824);    // 1073741823.5
  CHECK(q::srdhm(-(1 << 20) - 1, 1 << 30) == -524288);   // -(2^20 + 1) / 2 = -524288.5
  seatorch::core::Rng rng(13);
  for (int i = 0; i < 100000; ++i) {
    const auto a = static_cast<std::int32_t>(rng.next_u64());
    const std::int32_t b = random_multiplier(rng);
    const std::int64_t ab = std::int64_t{a} * b;
    const std::int64_t floor_form = (ab + (std::int64_t{1} << 30)) >> 31;  // arithmetic shift: floor
    INFO("a = " << a << ", b = " << b);
    REQUIRE(q::srdhm(a, b) == floor_form);
  }
}

TEST_CASE("rounding_rshift rounds half away from zero", "[quant]") {
  CHECK(q::rounding_rshift(5, 1) == 3);                                           // 2.5 -> 3
  CHECK(q::rounding_rshift(-5, 1) == -3);                                         // -2.5 -> -3
  CHECK(q::rounding_rshift(1, 1) == 1);                                           // 0.5 -> 1
  CHECK(q::rounding_rshift(-1, 1) == -1);                                         // -0.5 -> -1
  CHECK(q::rounding_rshift(7, 2) == 2);                                           // 1.75 -> 2
  CHECK(q::rounding_rshift(-6, 2) == -2);                                         // -1.5 -> -2
  CHECK(q::rounding_rshift(6, 2) == 2);                                           // 1.5 -> 2
  CHECK(q::rounding_rshift(-5, 2) == -1);                                         // -1.25 -> -1
  CHECK(q::rounding_rshift(-(3 << 29), 31) == -1);                                // -0.75 -> -1
  CHECK(q::rounding_rshift(std::numeric_limits<std::int32_t>::min(), 31) == -1);  // -1 exactly
  CHECK(q::rounding_rshift(-(1 << 30), 31) == -1);                                // -0.5 -> -1
  CHECK(q::rounding_rshift(1 << 30, 31) == 1);                                    // 0.5 -> 1
  CHECK(q::rounding_rshift(123, 0) == 123);
  seatorch::core::Rng rng(5);
  for (int i = 0; i < 100000; ++i) {
    const auto x = static_cast<std::int32_t>(rng.next_u64());
    const int shift = static_cast<int>(rng.below(32));
    INFO("x = " << x << ", shift = " << shift);
    REQUIRE(q::rounding_rshift(x, shift) == rounding_rshift_oracle(x, shift));
  }
  for (int i = 0; i < 100000; ++i) {  // exact ties: x = (2m + 1) * 2^(shift - 1)
    const int shift = 1 + static_cast<int>(rng.below(31));
    const std::int64_t odd = static_cast<std::int64_t>(rng.below(std::uint64_t{1} << (31 - shift))) * 2 + 1;
    const auto x = static_cast<std::int32_t>((rng.below(2) ? -odd : odd) << (shift - 1));
    INFO("tie x = " << x << ", shift = " << shift);
    REQUIRE(q::rounding_rshift(x, shift) == rounding_rshift_oracle(x, shift));
  }
}

TEST_CASE("requantize applies zero-point, saturation and ReLU as a clamp", "[quant]") {
  const q::QuantizedMultiplier half = q::quantize_multiplier(0.5);
  CHECK(half.multiplier == (1 << 30));
  CHECK(half.shift == 0);
  CHECK(q::requantize(100, half.multiplier, half.shift, 3, false) == 53);
  CHECK(q::requantize(-100, half.multiplier, half.shift, 3, false) == -47);
  CHECK(q::requantize(-100, half.multiplier, half.shift, 3, true) == 3);
  CHECK(q::requantize(1000, half.multiplier, half.shift, 0, false) == 127);
  CHECK(q::requantize(-1000, half.multiplier, half.shift, 0, false) == -128);
}

TEST_CASE("requantize clamps the exact sum when the product is near the int32 limits", "[quant]") {
  // z_out + srdhm(acc, M) >> shift leaves int32 here; the clamp must see the exact value
  // (the NPU's 34-bit sum), not a wrapped one. srdhm(INT32_MAX, INT32_MAX) = 2^31 - 2 and the
  // saturating case srdhm(INT32_MIN, INT32_MIN) = 2^31 - 1, each plus a positive zero-point.
  constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  REQUIRE(q::srdhm(kMax, kMax) == kMax - 1);
  CHECK(q::requantize(kMax, kMax, 0, 127, false) == 127);
  CHECK(q::requantize(kMin, kMin, 0, 5, true) == 127);
  // -(2^31 - 1) * (2^31 - 1) / 2^31 rounds to -(2^31 - 2); minus 128 is below INT32_MIN.
  CHECK(q::requantize(-kMax, kMax, 0, -128, false) == -128);
  CHECK(q::requantize(-kMax, kMax, 0, -128, true) == -128);
}

TEST_CASE("quantize_multiplier represents reals in (0,1) to 31 bits", "[quant]") {
  seatorch::core::Rng rng(3);
  for (int i = 0; i < 10000; ++i) {
    const double real = std::pow(2.0, -rng.uniform(0.0, 30.0)) * 0.999;
    const q::QuantizedMultiplier m = q::quantize_multiplier(real);
    REQUIRE(m.multiplier >= (1 << 30));
    REQUIRE(m.shift >= 0);
    REQUIRE(m.shift <= 31);
    const double represented = std::ldexp(static_cast<double>(m.multiplier), -31 - m.shift);
    INFO("real " << real << " -> M " << m.multiplier << ", shift " << m.shift);
    REQUIRE(std::abs(represented - real) <= std::ldexp(real, -30));
  }
  CHECK_THROWS_AS(q::quantize_multiplier(1.0), seatorch::core::InputError);
  CHECK_THROWS_AS(q::quantize_multiplier(0.0), seatorch::core::InputError);
  CHECK_THROWS_AS(q::quantize_multiplier(1e-12), seatorch::core::InputError);
}
