// How far apart two CPUs are, as the time a cache line takes to go from one to the other and
// back: two threads pinned to the two CPUs pass one atomic counter between them. On a virtual
// machine the host may place the same two vCPUs on one die (sharing an L3) and, seconds later,
// on two, where everything two threads exchange costs several times more (docs/DECISIONS.md,
// entry 64); a two-thread figure means little without this beside it.
// Deliberately not here: the cache topology the OS reports (a guest's is made up), pinning
// the worker pool's threads (core/parallel.hpp leaves placement to the OS), measuring how fast
// each CPU is alone (cpu_speed.hpp, which the watch below calls).
#pragma once

#include "seatorch/bench/cpu_set.hpp"
#include "seatorch/bench/cpu_speed.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <vector>

namespace seatorch::bench {

// What round_trip_ns() times: runs of kRoundTripsPerRun round trips (0.1 ms on one die, 0.7 ms
// across two on the machines seen so far), the median of kRoundTripRuns, so that a run the
// host interrupted does not count.
inline constexpr std::size_t kRoundTripsPerRun = 2000;
inline constexpr std::size_t kRoundTripRuns = 7;

struct CpuPair {
  std::size_t a = 0;
  std::size_t b = 0;
  double round_trip_ns = 0.0;  // the median of several runs of many round trips
};

// A cache line's round trip between CPUs a and b in nanoseconds; nullopt when a thread cannot
// be pinned to either (not in this process's affinity mask, or no such CPU). Takes about a
// millisecond on a quiet machine. Throws when a == b (the two threads would take turns on one
// CPU, which measures the scheduler).
std::optional<double> round_trip_ns(std::size_t a, std::size_t b);

// The first allowed CPU against each other allowed CPU, in order; empty with fewer than two.
std::vector<CpuPair> distances_from_first();

// The first two allowed CPUs (the ones a two-thread run on a two-CPU machine uses); nullopt
// with fewer than two, or where they cannot be pinned.
std::optional<CpuPair> first_pair();

// The first two CPUs' round trip before some timed work and after it, and how fast each of
// the two was alone then and with the other at once (cpu_speed.hpp: a vCPU slower than the
// other holds two threads to its pace, and in some minutes neither keeps its pace while the
// other runs).
struct CpuPlacement {
  std::size_t a = 0;
  std::size_t b = 0;
  double before_ns = 0.0;
  double after_ns = 0.0;
  std::array<double, 2> sparse_before_us{};          // CPU a's and CPU b's SparseProbe alone, before
  std::array<double, 2> sparse_after_us{};           // and after
  std::array<double, 2> sparse_at_once_before_us{};  // both at once (sparse_products_at_once), before
  std::array<double, 2> sparse_at_once_after_us{};   // and after
};

// Watches where a run's threads are: constructed before the timed work, it takes first_pair()
// and both CPUs' speed alone and at once when there are two threads or more; finish() after
// the work takes them again (some 0.3 s each time). nullopt on one thread, with fewer than two
// CPUs, or where they cannot be pinned.
class PlacementWatch {
 public:
  explicit PlacementWatch(std::size_t threads);
  [[nodiscard]] std::optional<CpuPlacement> finish() const;

 private:
  std::optional<CpuPair> before_;
  std::array<double, 2> sparse_before_us_{};
  std::array<double, 2> sparse_at_once_before_us_{};
};

}  // namespace seatorch::bench
