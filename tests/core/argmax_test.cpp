// argmax: the largest value's index, the lowest on a tie, for every element type.
#include "seatorch/core/argmax.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace core = seatorch::core;

TEST_CASE("argmax picks the largest value and the lowest index on ties", "[core]") {
  CHECK(core::argmax(std::vector<float>{0.1f, 0.7f, 0.2f}) == 1);
  CHECK(core::argmax(std::vector<float>{3.0f, 3.0f, 1.0f, 3.0f}) == 0);
  CHECK(core::argmax(std::vector<std::int8_t>{-5, 9, 9, -128}) == 1);
  CHECK(core::argmax(std::array<std::int8_t, 3>{-128, -128, -128}) == 0);
  const std::vector<std::int8_t> logits{1, 2, 127, 127};
  CHECK(core::argmax(std::span<const std::int8_t>(logits)) == 2);
  CHECK(core::argmax(std::vector<double>{-1.0}) == 0);
  CHECK(core::argmax(std::vector<float>{}) == 0);
}

TEST_CASE("argmax is the loop of > with its NaN behaviour, and takes a projection", "[core]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(core::argmax(std::vector<float>{1.0f, nan, 2.0f}) == 2);  // a NaN neither wins nor loses
  CHECK(core::argmax(std::vector<float>{nan, 5.0f}) == 0);        // the loop keeps index 0
  struct Scored {
    int id;
    double score;
  };
  const std::vector<Scored> items{{7, 0.5}, {8, 0.9}, {9, 0.9}};
  CHECK(core::argmax(items, &Scored::score) == 1);
}
