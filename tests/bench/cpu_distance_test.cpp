// A cache line's round trip between CPUs: the errors for a CPU it cannot use, and the watch
// the benches keep around their two-thread runs.
#include "seatorch/bench/cpu_distance.hpp"

#include "seatorch/core/error.hpp"

#include <catch2/catch.hpp>

#include <cstddef>
#include <optional>
#include <vector>

namespace b = seatorch::bench;

TEST_CASE("round_trip_ns times two allowed CPUs and refuses the ones it cannot pin", "[bench]") {
  const std::vector<std::size_t> cpus = b::allowed_cpus();
  REQUIRE_FALSE(cpus.empty());
  CHECK_THROWS_AS(b::round_trip_ns(cpus[0], cpus[0]), seatorch::core::InputError);
  // A CPU past any machine's mask: no thread can be pinned there.
  CHECK_FALSE(b::round_trip_ns(cpus[0], 100000).has_value());
  if (cpus.size() < 2) {
    WARN("one CPU usable: no pair to time");
    CHECK(b::distances_from_first().empty());
    CHECK_FALSE(b::first_pair().has_value());
    return;
  }
  const std::optional<double> ns = b::round_trip_ns(cpus[0], cpus[1]);
  REQUIRE(ns.has_value());
  INFO("round trip " << *ns << " ns");
  // Between a few nanoseconds (two threads of one core) and a millisecond (no machine's).
  CHECK(*ns > 1.0);
  CHECK(*ns < 1e6);
  const std::vector<b::CpuPair> pairs = b::distances_from_first();
  REQUIRE(pairs.size() == cpus.size() - 1);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    INFO("pair " << i << ": CPUs " << pairs[i].a << " and " << pairs[i].b);
    CHECK(pairs[i].a == cpus[0]);
    CHECK(pairs[i].b == cpus[i + 1]);
    CHECK(pairs[i].round_trip_ns > 1.0);
  }
}

TEST_CASE("PlacementWatch times the first two CPUs before and after, and only for two threads or more", "[bench]") {
  CHECK_FALSE(b::PlacementWatch(1).finish().has_value());
  const std::vector<std::size_t> cpus = b::allowed_cpus();
  const std::optional<b::CpuPlacement> placement = b::PlacementWatch(2).finish();
  if (cpus.size() < 2) {
    WARN("one CPU usable: no pair to watch");
    CHECK_FALSE(placement.has_value());
    return;
  }
  REQUIRE(placement.has_value());
  CHECK(placement->a == cpus[0]);
  CHECK(placement->b == cpus[1]);
  INFO("before " << placement->before_ns << " ns, after " << placement->after_ns << " ns");
  CHECK(placement->before_ns > 1.0);
  CHECK(placement->after_ns > 1.0);
  // Each CPU's sparse product alone, as cpu_speed() bounds it (cpu_speed_test.cpp).
  for (std::size_t i = 0; i < 2; ++i) {
    INFO("CPU " << (i == 0 ? placement->a : placement->b) << ": " << placement->sparse_before_us[i] << " us before, "
                << placement->sparse_after_us[i] << " us after");
    CHECK(placement->sparse_before_us[i] > 1.0);
    CHECK(placement->sparse_before_us[i] < 1e5);
    CHECK(placement->sparse_after_us[i] > 1.0);
    CHECK(placement->sparse_after_us[i] < 1e5);
    INFO("both at once: " << placement->sparse_at_once_before_us[i] << " us before, "
                          << placement->sparse_at_once_after_us[i] << " us after");
    CHECK(placement->sparse_at_once_before_us[i] > 1.0);
    CHECK(placement->sparse_at_once_before_us[i] < 1e5);
    CHECK(placement->sparse_at_once_after_us[i] > 1.0);
    CHECK(placement->sparse_at_once_after_us[i] < 1e5);
  }
}
