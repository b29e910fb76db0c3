// Rng: reproducible sequences, ranges, and sane moments.
#include "seatorch/core/rng.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <vector>

TEST_CASE("Rng is reproducible for a seed and differs across seeds", "[core]") {
  seatorch::core::Rng a(42);
  seatorch::core::Rng b(42);
  seatorch::core::Rng c(43);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t x = a.next_u64();
    CHECK(x == b.next_u64());
    differs |= x != c.next_u64();
  }
  CHECK(differs);
}

TEST_CASE("Rng distributions stay in range with plausible moments", "[core]") {
  seatorch::core::Rng rng(1);
  constexpr int kN = 200'000;
  double sum = 0.0;
  double sum_sq = 0.0;
  for (int i = 0; i < kN; ++i) {
    const double u = rng.uniform();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    const double z = rng.normal();
    sum += z;
    sum_sq += z * z;
    REQUIRE(rng.below(7) < 7);
  }
  CHECK(sum / kN == Approx(0.0).margin(0.01));
  CHECK(sum_sq / kN == Approx(1.0).margin(0.02));
}

TEST_CASE("shuffle is a permutation", "[core]") {
  seatorch::core::Rng rng(5);
  std::vector<int> v(1000);
  std::iota(v.begin(), v.end(), 0);
  rng.shuffle(std::span<int>(v));
  CHECK_FALSE(std::is_sorted(v.begin(), v.end()));
  std::sort(v.begin(), v.end());
  for (int i = 0; i < 1000; ++i) REQUIRE(v[i] == i);
}
