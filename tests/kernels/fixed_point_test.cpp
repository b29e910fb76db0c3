// The fixed-point primitives against exact rational arithmetic (long double / int64) and
// gemmlowp's documented edge cases.
#include "seatorch/kernels/fixed_point.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/core/rng.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

namespace q = seatorch::kernels;

namespace {

// round(num / 2^bits), ties away from zero, in exact int64/int128-free arithmetic.
std::int64_t round_div_pow2(std::int64_t num, int bits) {
  const std::int64_t d = std::int64_t{1} << bits;
  const std::int64_t mag = num >= 0 ? num : -num;
  const std::int64_t r = (mag + d / 2) / d;
  return num >= 0 ? r : -r;
}

}  // namespace

TEST_CASE("srdhm is round(a*b/2^31) with ties away from zero", "[quant]") {
  seatorch::core::Rng rng(11);
  for (int i = 0; i < 100000; ++i) {
    const auto a = static_cast<std::int32_t>(rng.next_u64());
    const auto b = static_cast<std::int32_t>((rng.next_u64() >> 33) | (std::uint64_t{1} << 30));
    const std::int64_t expected = round_div_pow2(std::int64_t{a} * b, 31);
    INFO("a = " << a << ", b = " << b << ": srdhm " << seatorch::kernels::srdhm(a, b) << ", exact " << expected);
    REQUIRE(seatorch::kernels::srdhm(a, b) == expected);
  }
  constexpr auto kMin = std::numeric_limits<std::int32_t>::min();
  CHECK(seatorch::kernels::srdhm(kMin, kMin) == std::numeric_limits<std::int32_t>::max());
  CHECK(seatorch::kernels::srdhm(1 << 30, 1 << 30) == 1 << 29);
}

TEST_CASE("srdhm rounds exact ties toward +infinity", "[quant]") {
  // a * b / 2^31 = -0.5, -1.5, 0.5, 1.5: ties are rare in random data, so pin them here;
  // the SIMD requantization and the NPU rely on floor((a * b + 2^30) / 2^31).
  CHECK(seatorch::kernels::srdhm(-1, 1 << 30) == 0);
  CHECK(seatorch::kernels::srdhm(-3, 1 << 30) == -1);
  CHECK(seatorch::kernels::srdhm(1, 1 << 30) == 1);
  CHECK(seatorch::kernels::srdhm(3, 1 << 30) == 2);
  seatorch::core::Rng rng(13);
  for (int i = 0; i < 100000; ++i) {
    const auto a = static_cast<std::int32_t>(rng.next_u64());
    const auto b = static_cast<std::int32_t>((rng.next_u64() >> 33) | (std::uint64_t{1} << 30));
    const std::int64_t ab = std::int64_t{a} * b;
    const std::int64_t floor_form = (ab + (std::int64_t{1} << 30)) >> 31;  // arithmetic shift: floor
    INFO("a = " << a << ", b = " << b);
    REQUIRE(seatorch::kernels::srdhm(a, b) == floor_form);
  }
}

TEST_CASE("rounding_rshift rounds half away from zero", "[quant]") {
  CHECK(seatorch::kernels::rounding_rshift(5, 1) == 3);    // 2.5 -> 3
  CHECK(seatorch::kernels::rounding_rshift(-5, 1) == -3);  // -2.5 -> -3
  CHECK(seatorch::kernels::rounding_rshift(7, 2) == 2);    // 1.75 -> 2
  CHECK(seatorch::kernels::rounding_rshift(-6, 2) == -2);  // -1.5 -> -2
  CHECK(seatorch::kernels::rounding_rshift(-5, 2) == -1);  // -1.25 -> -1
  CHECK(seatorch::kernels::rounding_rshift(123, 0) == 123);
  seatorch::core::Rng rng(5);
  for (int i = 0; i < 100000; ++i) {
    const auto x = static_cast<std::int32_t>(rng.next_u64());
    const int shift = static_cast<int>(rng.below(32));
    INFO("x = " << x << ", shift = " << shift);
    REQUIRE(seatorch::kernels::rounding_rshift(x, shift) == round_div_pow2(x, shift));
  }
}

TEST_CASE("requantize applies zero-point, saturation and ReLU as a clamp", "[quant]") {
  const seatorch::kernels::QuantizedMultiplier half = seatorch::kernels::quantize_multiplier(0.5);
  CHECK(half.multiplier == (1 << 30));
  CHECK(half.shift == 0);
  CHECK(seatorch::kernels::requantize(100, half.multiplier, half.shift, 3, false) == 53);
  CHECK(seatorch::kernels::requantize(-100, half.multiplier, half.shift, 3, false) == -47);
  CHECK(seatorch::kernels::requantize(-100, half.multiplier, half.shift, 3, true) == 3);
  CHECK(seatorch::kernels::requantize(1000, half.multiplier, half.shift, 0, false) == 127);
  CHECK(seatorch::kernels::requantize(-1000, half.multiplier, half.shift, 0, false) == -128);
}

TEST_CASE("requantize clamps the exact sum when the product is near the int32 limits", "[quant]") {
  // z_out + srdhm(acc, M) >> shift leaves int32 here; the clamp must see the exact value
  // (the NPU's 34-bit sum), not a wrapped one. srdhm(INT32_MAX, INT32_MAX) = 2^31 - 2 and the
  // saturating case srdhm(INT32_MIN, INT32_MIN) = 2^31 - 1, each plus a positive zero-point.
  constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  REQUIRE(seatorch::kernels::srdhm(kMax, kMax) == kMax - 1);
  CHECK(seatorch::kernels::requantize(kMax, kMax, 0, 127, false) == 127);
  CHECK(seatorch::kernels::requantize(kMin, kMin, 0, 5, true) == 127);
  // -(2^31 - 1) * (2^31 - 1) / 2^31 rounds to -(2^31 - 2); minus 128 is below INT32_MIN.
  CHECK(seatorch::kernels::requantize(-kMax, kMax, 0, -128, false) == -128);
  CHECK(seatorch::kernels::requantize(-kMax, kMax, 0, -128, true) == -128);
}

TEST_CASE("quantize_multiplier represents reals in (0,1) to 31 bits", "[quant]") {
  seatorch::core::Rng rng(3);
  for (int i = 0; i < 10000; ++i) {
    const double real = std::pow(2.0, -rng.uniform(0.0, 30.0)) * 0.999;
    const seatorch::kernels::QuantizedMultiplier m = seatorch::kernels::quantize_multiplier(real);
    REQUIRE(m.multiplier >= (1 << 30));
    REQUIRE(m.shift >= 0);
    REQUIRE(m.shift <= 31);
    const double represented = std::ldexp(static_cast<double>(m.multiplier), -31 - m.shift);
    INFO("real " << real << " -> M " << m.multiplier << ", shift " << m.shift);
    REQUIRE(std::abs(represented - real) <= std::ldexp(real, -30));
  }
  CHECK_THROWS_AS(seatorch::kernels::quantize_multiplier(1.0), seatorch::core::InputError);
  CHECK_THROWS_AS(seatorch::kernels::quantize_multiplier(0.0), seatorch::core::InputError);
  CHECK_THROWS_AS(seatorch::kernels::quantize_multiplier(1e-12), seatorch::core::InputError);
}
