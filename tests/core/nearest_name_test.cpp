// The "did you mean" suggestions: known distances, the typo budget, ties and no match.
#include "seatorch/core/nearest_name.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using seatorch::core::edit_distance;
using seatorch::core::nearest_name;

TEST_CASE("edit_distance counts insertions, deletions, substitutions and neighbour swaps", "[core]") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("train", "train") == 0);
  CHECK(edit_distance("trian", "train") == 1);     // one swap
  CHECK(edit_distance("epohcs", "epochs") == 1);   // one swap
  CHECK(edit_distance("matmull", "matmul") == 1);  // one deletion
  CHECK(edit_distance("eval", "evil") == 1);       // one substitution
  CHECK(edit_distance("bach", "batch") == 1);      // one insertion
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("ca", "abc") == 3);  // optimal string alignment: no edits inside a swapped pair
  CHECK(edit_distance("abcdef", "badcfe") == 3);
}

TEST_CASE("nearest_name suggests a near name and nothing when none is near", "[core]") {
  const std::vector<std::string> commands{"train", "eval", "quantize", "export", "sim", "serve", "predict", "bench"};
  CHECK(nearest_name("trian", commands) == "train");
  CHECK(nearest_name("qunatize", commands) == "quantize");
  CHECK(nearest_name("exprot", commands) == "export");
  CHECK(nearest_name("predcit", commands) == "predict");
  CHECK(nearest_name("bench", commands) == "bench");
  CHECK_FALSE(nearest_name("fly", commands).has_value());
  CHECK_FALSE(nearest_name("", commands).has_value());
  CHECK_FALSE(nearest_name("trian", std::vector<std::string>{}).has_value());
  // Short names get one edit, longer ones two.
  CHECK_FALSE(nearest_name("evl_", commands).has_value());     // two edits from eval: too far for 4 characters
  CHECK(nearest_name("quantzie_", commands) == "quantize");    // two edits, 9 characters
  CHECK_FALSE(nearest_name("qnatzie", commands).has_value());  // three edits
  // The first of equally near names wins.
  CHECK(nearest_name("sem", std::vector<std::string>{"sim", "set"}) == "sim");
  const std::vector<std::string> flags{"epochs", "batch", "lr", "limit", "seed"};
  CHECK(nearest_name("epohcs", flags) == "epochs");
  CHECK(nearest_name("ephocs", flags) == "epochs");
  CHECK(nearest_name("bach", flags) == "batch");
  CHECK_FALSE(nearest_name("bogus", flags).has_value());
}
