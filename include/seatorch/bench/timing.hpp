// Timing a piece of work for a benchmark: warm-up, an adaptive repetition count, median.
//
// The first call warms caches and page tables and calibrates: each sample then repeats the
// work enough times to last at least `min_sample_seconds`, so that short calls are not
// lost in the clock's resolution, and the figure reported is the median over `samples`
// samples, robust to a stray interruption. Works compared against each other are sampled
// in turn, round by round (time_interleaved: `bench matmul`'s engines, `bench int8`'s
// paths); best_probe_rate() times the throughput probes behind the peaks, and
// higher_probe() keeps the better of a probe taken before a bench's work and one after.
// Deliberately not here: statistics beyond the median, pinning threads to cores.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace seatorch::bench {

// What a benchmark's seconds are. For single-threaded work on an idle machine the two
// agree; on a shared one the wall clock also counts the time the scheduler gives to other
// processes, while the calling thread's CPU time counts only the work, so it measures the
// code rather than the machine's load. Work that runs on several threads needs the wall
// clock.
enum class TimingClock { kWall, kThreadCpu };

std::string_view clock_name(TimingClock clock);  // "wall" or "thread_cpu"

// The current reading of `clock`, in seconds from an arbitrary origin.
double now_seconds(TimingClock clock);

struct TimingOptions {
  std::size_t samples = 5;           // timed samples; the median is reported
  double min_sample_seconds = 0.02;  // each sample repeats the work at least this long
  TimingClock clock = TimingClock::kWall;
};

struct Timing {
  double seconds = 0.0;  // median seconds per call
  std::size_t calls_per_sample = 0;
  std::size_t samples = 0;
};

// The median of `values` (the mean of the middle two for an even count); not empty.
double median(std::vector<double> values);

// Times several works against each other: one warm-up call each, which also sets how many
// calls make that work's sample last `min_sample_seconds` (at least one), then
// `samples` rounds in which each work's sample is taken in turn. Returns each work's
// Timing, in order. Interleaving makes all of them see the same machine load, so the ratios
// between them stay fair on a shared machine: timed one after the other, a burst of a
// neighbour's work on the host lands on one engine's samples only (seen on a Zen 3 guest,
// DECISIONS 48). Each sample follows one untimed call of its own work, so it measures the
// work as it runs when repeated, not its refill of the caches the previous work took over
// (a one-call sample of VNNI inference after the float pass ran 7-14 % slower, DECISIONS 55).
std::vector<Timing> time_interleaved(const std::vector<std::function<void()>>& works, const TimingOptions& options);

// The best rate, in units of work per second, of a throughput probe: `probe(rounds)` does
// `rounds` rounds of work in registers and returns the units it did (FLOPs, products).
// The rounds are calibrated on a short run so that each of ten runs lasts about seconds / 10,
// and the best run counts: a short run is likely to go uninterrupted even on a busy machine,
// and nothing makes a run faster than the hardware allows.
double best_probe_rate(double (*probe)(std::size_t rounds), double seconds, TimingClock clock);

// Of two readings of the same probe, taken before and after a bench's work, the one whose
// `rate` (FmaPeak::gflops, PathCeiling::peak) is higher; nullopt only when both are. The host
// can slow a probe for a moment (one read a fifth low, DECISIONS 111), which then reads low,
// never high, and every share of it measured against it high.
template <class Reading>
std::optional<Reading> higher_probe(const std::optional<Reading>& before, const std::optional<Reading>& after,
                                    double Reading::*rate) {
  if (!before || (after && (*after).*rate > (*before).*rate)) return after;
  return before;
}

}  // namespace seatorch::bench
