// A cache line's round trip between two CPUs (bench/cpu_distance.hpp).
#include "seatorch/bench/cpu_distance.hpp"

#include "seatorch/bench/cpu_set.hpp"
#include "seatorch/bench/cpu_speed.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/core/prefetch.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace seatorch::bench {
namespace {

// The counter the two threads pass: alone on its cache line, so that nothing else moves it.
struct alignas(core::kCacheLineBytes) Ball {
  std::atomic<std::uint64_t> value{0};
};

void wait_for(const std::atomic<std::uint64_t>& a, std::uint64_t value) {
  while (a.load(std::memory_order_acquire) != value) {
  }
}

}  // namespace

std::optional<double> round_trip_ns(std::size_t a, std::size_t b) {
  if (a == b) throw core::input_error("a round trip needs two different CPUs, not CPU {} twice", a);
  Ball ball;
  std::atomic<int> pinned{0};
  std::atomic<int> failed{0};
  // Each thread pins itself and then waits for the other, so that neither passes the ball
  // before both are in place, and both give up if either could not be pinned (or, should the
  // second thread fail to start, the first is not left waiting for it).
  auto take_place = [&](std::size_t cpu) {
    if (!pin_this_thread(cpu)) failed.fetch_add(1);
    pinned.fetch_add(1);
    while (pinned.load() < 2) {
    }
    return failed.load() == 0;
  };
  std::array<double, kRoundTripRuns> runs{};  // ns per round trip, one per timed run
  {
    // The answering thread: returns each odd value as the next even one.
    const std::jthread answer([&] {
      if (!take_place(b)) return;
      for (std::uint64_t i = 1; i <= kRoundTripRuns * kRoundTripsPerRun; ++i) {
        wait_for(ball.value, 2 * i - 1);
        ball.value.store(2 * i, std::memory_order_release);
      }
    });
    try {
      // The timing thread, a new one too: the caller's own affinity stays as it was.
      const std::jthread serve([&] {
        if (!take_place(a)) return;
        std::uint64_t sent = 0;
        for (double& run : runs) {
          const auto start = std::chrono::steady_clock::now();
          for (std::uint64_t i = 0; i < kRoundTripsPerRun; ++i) {
            ++sent;
            ball.value.store(2 * sent - 1, std::memory_order_release);
            wait_for(ball.value, 2 * sent);
          }
          const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
          run = took.count() / static_cast<double>(kRoundTripsPerRun);
        }
      });
    } catch (...) {
      failed.fetch_add(1);
      pinned.fetch_add(1);  // releases the answering thread, which then sees the failure
      throw;
    }
  }
  if (failed.load() != 0) return std::nullopt;
  std::sort(runs.begin(), runs.end());
  return runs[kRoundTripRuns / 2];
}

std::vector<CpuPair> distances_from_first() {
  const std::vector<std::size_t> cpus = allowed_cpus();
  std::vector<CpuPair> pairs;
  for (std::size_t i = 1; i < cpus.size(); ++i) {
    if (const std::optional<double> ns = round_trip_ns(cpus[0], cpus[i])) pairs.push_back({cpus[0], cpus[i], *ns});
  }
  return pairs;
}

std::optional<CpuPair> first_pair() {
  const std::vector<std::size_t> cpus = allowed_cpus();
  if (cpus.size() < 2) return std::nullopt;
  const std::optional<double> ns = round_trip_ns(cpus[0], cpus[1]);
  if (!ns) return std::nullopt;
  return CpuPair{cpus[0], cpus[1], *ns};
}

namespace {

// CPUs a's and b's sparse product in us, each alone and both at once; nullopt where either
// cannot be pinned.
struct SparseSpeeds {
  std::array<double, 2> alone{};
  std::array<double, 2> at_once{};
};

std::optional<SparseSpeeds> sparse_speeds(std::size_t a, std::size_t b) {
  const std::optional<CpuSpeed> first = cpu_speed(a);
  const std::optional<CpuSpeed> second = cpu_speed(b);
  const std::array<std::size_t, 2> pair{a, b};
  const std::optional<std::vector<double>> together = sparse_products_at_once(pair);
  if (!first || !second || !together) return std::nullopt;
  return SparseSpeeds{{first->sparse_product_us, second->sparse_product_us}, {(*together)[0], (*together)[1]}};
}

}  // namespace

PlacementWatch::PlacementWatch(std::size_t threads) {
  if (threads <= 1) return;
  before_ = first_pair();
  if (!before_) return;
  const std::optional<SparseSpeeds> speeds = sparse_speeds(before_->a, before_->b);
  if (speeds) {
    sparse_before_us_ = speeds->alone;
    sparse_at_once_before_us_ = speeds->at_once;
  } else {
    before_.reset();
  }
}

std::optional<CpuPlacement> PlacementWatch::finish() const {
  if (!before_) return std::nullopt;
  const std::optional<double> after = round_trip_ns(before_->a, before_->b);
  const std::optional<SparseSpeeds> speeds = sparse_speeds(before_->a, before_->b);
  if (!after || !speeds) return std::nullopt;
  return CpuPlacement{before_->a,        before_->b,    before_->round_trip_ns,    *after,
                      sparse_before_us_, speeds->alone, sparse_at_once_before_us_, speeds->at_once};
}

}  // namespace seatorch::bench
