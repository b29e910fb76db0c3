// take_first and split_tail: sizes, order, and refusals.
#include "seatorch/data/split.hpp"

#include "seatorch/core/error.hpp"

#include <catch2/catch.hpp>

using Catch::Matchers::Contains;

namespace {

// n samples of 2 features; sample i is (i, -i) with label i % 3.
seatorch::data::Dataset counting(std::size_t n) {
  seatorch::data::Dataset d;
  d.features = 2;
  d.classes = 3;
  for (std::size_t i = 0; i < n; ++i) {
    d.x.push_back(static_cast<float>(i));
    d.x.push_back(-static_cast<float>(i));
    d.y.push_back(static_cast<std::int32_t>(i % 3));
  }
  return d;
}

void check_samples(const seatorch::data::Dataset& d, std::size_t first, std::size_t count) {
  REQUIRE(d.size() == count);
  REQUIRE(d.x.size() == count * 2);
  CHECK(d.features == 2);
  CHECK(d.classes == 3);
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t i = first + k;
    INFO("sample " << k << " should be original " << i);
    CHECK(d.x[2 * k] == static_cast<float>(i));
    CHECK(d.x[2 * k + 1] == -static_cast<float>(i));
    CHECK(d.y[k] == static_cast<std::int32_t>(i % 3));
  }
}

}  // namespace

TEST_CASE("take_first keeps the first n samples in order", "[data]") {
  check_samples(seatorch::data::take_first(counting(10), 4), 0, 4);
  check_samples(seatorch::data::take_first(counting(10), 10), 0, 10);
  check_samples(seatorch::data::take_first(counting(10), 1000), 0, 10);
  CHECK_THROWS_AS(seatorch::data::take_first(counting(10), 0), seatorch::core::InputError);
}

TEST_CASE("split_tail cuts off the rounded last fraction", "[data]") {
  struct Case {
    std::size_t n;
    double fraction;
    std::size_t tail;
  };
  for (const Case c : {Case{100, 0.2, 20}, Case{10, 0.25, 3}, Case{3, 0.1, 1}, Case{2, 0.5, 1}, Case{1001, 0.1, 100}}) {
    INFO(c.n << " samples, fraction " << c.fraction);
    const seatorch::data::HeadTail parts = seatorch::data::split_tail(counting(c.n), c.fraction, "--val");
    check_samples(parts.head, 0, c.n - c.tail);
    check_samples(parts.tail, c.n - c.tail, c.tail);
  }
}

TEST_CASE("split_tail refuses bad fractions and sets too small to split", "[data]") {
  for (const double f : {0.0, 1.0, -0.5, 1.5}) {
    CHECK_THROWS_WITH(seatorch::data::split_tail(counting(10), f, "--val"),
                      Contains("--val") && Contains("between 0 and 1"));
  }
  CHECK_THROWS_WITH(seatorch::data::split_tail(counting(1), 0.5, "--val"), Contains("1 samples are too few"));
  CHECK_THROWS_WITH(seatorch::data::split_tail(counting(4), 0.9, "--val"), Contains("4 samples are too few"));
}
