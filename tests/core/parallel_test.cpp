// The worker pool: every part runs exactly once on any thread count, loops inside a part
// run inline, errors come back to the caller, ranges keep their grain and follow the
// threads' shares, the shares move towards the faster thread, work offered for idle time
// runs once, only while offered, and bad counts are refused.
#include "seatorch/core/error.hpp"
#include "seatorch/core/parallel.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using seatorch::core::parallel_for;
using seatorch::core::parallel_ranges;

TEST_CASE("parallel_for runs every part exactly once, on each thread count", "[core]") {
  for (std::size_t threads : {1u, 2u, 3u, 5u}) {
    const seatorch::core::ScopedThreads count(threads);
    CHECK(seatorch::core::threads() == threads);
    for (std::size_t parts : {1u, 2u, 3u, 7u, 64u}) {
      std::vector<std::atomic<int>> runs(parts);
      for (int round = 0; round < 50; ++round) parallel_for(parts, [&](std::size_t p) { runs[p].fetch_add(1); });
      for (std::size_t p = 0; p < parts; ++p) {
        INFO("threads " << threads << ", parts " << parts << ", part " << p << " ran " << runs[p].load() << " times");
        CHECK(runs[p].load() == 50);
      }
    }
  }
}

TEST_CASE("parallel_for uses the workers, and a loop inside a part runs inline", "[core]") {
  const seatorch::core::ScopedThreads count(2);
  CHECK(seatorch::core::loop_threads() == 2);
  // What each part saw, checked on this thread afterwards: Catch2's checks are not to be
  // made from other threads.
  std::vector<std::thread::id> ids(2);
  std::vector<std::thread::id> inner_ids(2 * 3);
  std::vector<int> inner(2 * 3, 0);
  std::vector<std::size_t> loop_threads_inside(2, 0);
  parallel_for(2, [&](std::size_t p) {
    ids[p] = std::this_thread::get_id();
    loop_threads_inside[p] = seatorch::core::loop_threads();
    parallel_for(3, [&](std::size_t q) {
      inner_ids[p * 3 + q] = std::this_thread::get_id();
      ++inner[p * 3 + q];
    });
  });
  CHECK(ids[0] == std::this_thread::get_id());
  CHECK(ids[1] != ids[0]);
  CHECK(inner == std::vector<int>(6, 1));
  for (std::size_t i = 0; i < inner_ids.size(); ++i) {
    INFO("inner part " << i % 3 << " of part " << i / 3);
    CHECK(inner_ids[i] == ids[i / 3]);
  }
  // Inside a part a loop is inline, on one thread, and says so.
  CHECK(loop_threads_inside == std::vector<std::size_t>{1, 1});
  CHECK(seatorch::core::loop_threads() == 2);
}

TEST_CASE("an exception in a part reaches the caller after every part ran", "[core]") {
  const seatorch::core::ScopedThreads count(2);
  std::atomic<int> ran{0};
  CHECK_THROWS_WITH(parallel_for(4,
                                 [&](std::size_t p) {
                                   ran.fetch_add(1);
                                   if (p == 3) throw std::runtime_error("part 3 failed");
                                 }),
                    "part 3 failed");
  CHECK(ran.load() == 4);
  // The same for a loop run inline, inside a part: the first exception, after every part.
  std::atomic<int> inner{0};
  CHECK_THROWS_WITH(parallel_for(2,
                                 [&](std::size_t p) {
                                   if (p != 0) return;
                                   parallel_for(3, [&](std::size_t q) {
                                     inner.fetch_add(1);
                                     if (q < 2) throw std::runtime_error("inner part " + std::to_string(q));
                                   });
                                 }),
                    "inner part 0");
  CHECK(inner.load() == 3);
  int after = 0;  // the pool still works
  parallel_for(2, [&](std::size_t p) {
    if (p == 0) ++after;
  });
  CHECK(after == 1);
}

TEST_CASE("parallel_ranges covers every index once, in grain-aligned pieces, small loops on one thread", "[core]") {
  const seatorch::core::ScopedThreads count(3);
  for (std::size_t n : {0u, 1u, 15u, 64u, 100u, 1000u}) {
    std::vector<int> covered(n, 0);
    std::vector<std::size_t> begins;
    std::mutex m;
    parallel_ranges(n, 16, 0, [&](std::size_t begin, std::size_t end) {
      const std::lock_guard lock(m);
      begins.push_back(begin);
      for (std::size_t i = begin; i < end; ++i) ++covered[i];
    });
    for (std::size_t i = 0; i < n; ++i) {
      INFO("n " << n << ": element " << i << " covered " << covered[i] << " times");
      CHECK(covered[i] == 1);
    }
    for (std::size_t b : begins) CHECK(b % 16 == 0);
  }
  std::size_t calls = 0;  // 100 elements with at least 64 per range: one range
  parallel_ranges(100, 1, 64, [&](std::size_t begin, std::size_t end) {
    ++calls;
    CHECK(begin == 0);
    CHECK(end == 100);
  });
  CHECK(calls == 1);
}

namespace {

// The ranges parallel_ranges() hands out, by their first index.
std::map<std::size_t, std::size_t> ranges_of(std::size_t n, std::size_t grain, std::size_t min_size = 0) {
  std::map<std::size_t, std::size_t> ranges;
  std::mutex m;
  parallel_ranges(n, grain, min_size, [&](std::size_t begin, std::size_t end) {
    const std::lock_guard lock(m);
    ranges[begin] = end;
  });
  return ranges;
}

}  // namespace

TEST_CASE("parallel_ranges splits by the fixed shares, at the grain boundary nearest to each", "[core]") {
  const seatorch::core::ScopedThreads count(3);
  const std::vector<double> shares{2.0, 1.0, 1.0};  // scaled to 0.5, 0.25, 0.25
  const seatorch::core::ScopedShares fixed(shares);
  CHECK(seatorch::core::shares() == std::vector<double>{0.5, 0.25, 0.25});
  // 1000 x 0.5 = 500 -> 496 (31 grains of 16), 1000 x 0.75 = 750 -> 752 (47 grains).
  CHECK(ranges_of(1000, 16) == std::map<std::size_t, std::size_t>{{0, 496}, {496, 752}, {752, 1000}});
  // Fewer parts than threads (min_size): split evenly, not by the shares.
  CHECK(ranges_of(100, 1, 50) == std::map<std::size_t, std::size_t>{{0, 50}, {50, 100}});
}

TEST_CASE("the shares move towards the faster thread, within bounds, and are refused when malformed", "[core]") {
  const seatorch::core::ScopedThreads count(2);
  seatorch::core::release_shares();
  CHECK(seatorch::core::shares() == std::vector<double>{0.5, 0.5});
  // The worker's part (the one not starting at 0) takes 2 ms whatever its size; the caller's
  // is immediate. Every loop then says thread 0 is the faster, up to the bound of 1.5 x even.
  for (int loop = 0; loop < 40; ++loop) {
    parallel_ranges(1024, 16, 0, [](std::size_t begin, std::size_t) {
      if (begin != 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    });
  }
  const std::vector<double> moved = seatorch::core::shares();
  INFO("shares after 40 loops with a slow worker: " << moved[0] << ", " << moved[1]);
  CHECK(moved[0] > 0.65);
  CHECK(moved[0] <= 0.75);
  CHECK(moved[0] + moved[1] == Approx(1.0));
  seatorch::core::release_shares();
  CHECK(seatorch::core::shares() == std::vector<double>{0.5, 0.5});

  const std::vector<double> three{0.2, 0.3, 0.5};
  CHECK_THROWS_AS(seatorch::core::fix_shares(three), std::invalid_argument);
  const std::vector<double> negative{-0.5, 1.5};
  CHECK_THROWS_AS(seatorch::core::fix_shares(negative), std::invalid_argument);
  const std::vector<double> zero{0.0, 0.0};
  CHECK_THROWS_AS(seatorch::core::fix_shares(zero), std::invalid_argument);
}

namespace {

// Items offered for idle time that record which thread ran each, and how often.
struct IdleItems {
  explicit IdleItems(std::size_t n) : runs(n), thread(n) {}
  std::vector<std::atomic<int>> runs;
  std::vector<std::atomic<std::size_t>> thread;
  std::atomic<std::size_t> ran{0};
  std::atomic<std::size_t> by_workers{0};
  std::atomic<bool> fail{false};

  static void run(void* self, std::size_t item, std::size_t thread) {
    auto& items = *static_cast<IdleItems*>(self);
    if (items.fail.load()) throw std::runtime_error("item failed");
    items.thread[item].store(thread);
    items.runs[item].fetch_add(1);
    items.ran.fetch_add(1);
    if (thread != 0) items.by_workers.fetch_add(1);
  }
  void offer() { seatorch::core::offer_idle(runs.size(), &IdleItems::run, this); }
};

// Waits (at most a few seconds, for a loaded machine) until `done` holds.
template <class Done>
bool wait_until(Done done) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!done()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace

TEST_CASE("items offered for idle time run once each: by a waiting thread, or after the withdrawal", "[core]") {
  using seatorch::core::offer_idle;
  using seatorch::core::withdraw_idle;
  const seatorch::core::ScopedThreads count(2);
  IdleItems items(100000);
  items.offer();
  // A loop, then the caller away (its own serial code): the worker, waiting for the next
  // loop, takes items. A worker asleep after a long wait does not wake for an offer, so on
  // a loaded machine a loop now and then lets it see this one.
  REQUIRE(wait_until([&] {
    if (items.by_workers.load() == 0) parallel_for(2, [](std::size_t) {});
    return items.by_workers.load() > 0;
  }));
  const std::size_t taken = withdraw_idle();
  const std::size_t ran = items.ran.load();
  CHECK(taken == ran);  // every item taken is done once withdraw_idle() returns
  for (std::size_t i = 0; i < items.runs.size(); ++i) {
    if (items.runs[i].load() != (i < taken ? 1 : 0)) {
      FAIL("item " << i << " (" << taken << " taken) ran " << items.runs[i].load() << " times");
    }
  }
  // Withdrawn: nothing more runs, however long the worker waits.
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(items.ran.load() == ran);
  CHECK(withdraw_idle() == 0);  // no offer out

  // The caller waiting at a loop's end (its part done, the worker's not) takes items too.
  IdleItems more(1000);
  more.offer();
  parallel_for(2, [&](std::size_t p) {
    if (p == 1) wait_until([&] { return more.ran.load() > 0; });
  });
  const std::size_t more_taken = withdraw_idle();
  CHECK(more_taken == more.ran.load());
  bool caller_ran_one = false;
  for (std::size_t i = 0; i < more_taken; ++i) caller_ran_one = caller_ran_one || more.thread[i].load() == 0;
  CHECK(caller_ran_one);

  // An item's exception reaches the caller at the withdrawal.
  IdleItems failing(10);
  failing.fail.store(true);
  failing.offer();
  parallel_for(2, [](std::size_t p) {  // the caller, waiting for part 1, takes one
    if (p == 1) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  });
  CHECK_THROWS_WITH(withdraw_idle(), "item failed");
}

TEST_CASE("with one thread nothing runs an offered item", "[core]") {
  const seatorch::core::ScopedThreads count(1);
  IdleItems items(10);
  items.offer();
  parallel_for(3, [](std::size_t) {});
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  CHECK(seatorch::core::withdraw_idle() == 0);
  CHECK(items.ran.load() == 0);
}

TEST_CASE("a thread count of 0 or above the limit is an OptionError", "[core]") {
  CHECK_THROWS_AS(seatorch::core::set_threads(0), seatorch::core::OptionError);
  CHECK_THROWS_AS(seatorch::core::set_threads(seatorch::core::kMaxThreads + 1), seatorch::core::OptionError);
  CHECK(seatorch::core::threads() >= 1);
}
