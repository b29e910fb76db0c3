// Warm-up, adaptive repetitions, median, interleaved rounds (see timing.hpp).
#include "seatorch/bench/timing.hpp"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace seatorch::bench {
namespace {

double seconds_for(const std::function<void()>& work, std::size_t calls, TimingClock clock) {
  const double start = now_seconds(clock);
  for (std::size_t i = 0; i < calls; ++i) work();
  return now_seconds(clock) - start;
}

}  // namespace

std::string_view clock_name(TimingClock clock) { return clock == TimingClock::kWall ? "wall" : "thread_cpu"; }

double now_seconds(TimingClock clock) {
  timespec ts{};
  if (::clock_gettime(clock == TimingClock::kWall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
    throw std::runtime_error("clock_gettime failed");
  }
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::vector<Timing> time_interleaved(const std::vector<std::function<void()>>& works, const TimingOptions& options) {
  // Aim 20% over the minimum so that jitter rarely leaves a sample short.
  const double wanted = 1.2 * options.min_sample_seconds;
  const std::size_t samples = std::max<std::size_t>(options.samples, 1);
  std::vector<Timing> timings(works.size());
  for (std::size_t w = 0; w < works.size(); ++w) {
    const double first = seconds_for(works[w], 1, options.clock);  // warm-up and calibration
    timings[w].calls_per_sample = static_cast<std::size_t>(std::max(1.0, std::ceil(wanted / std::max(first, 1e-9))));
    timings[w].samples = samples;
  }
  std::vector<std::vector<double>> per_call(works.size());  // (works, samples)
  for (std::size_t r = 0; r < samples; ++r) {
    for (std::size_t w = 0; w < works.size(); ++w) {
      const std::size_t calls = timings[w].calls_per_sample;
      works[w]();  // untimed: the sample starts with this work's data in the caches, not the last work's
      per_call[w].push_back(seconds_for(works[w], calls, options.clock) / static_cast<double>(calls));
    }
  }
  for (std::size_t w = 0; w < works.size(); ++w) timings[w].seconds = median(per_call[w]);
  return timings;
}

double best_probe_rate(double (*probe)(std::size_t rounds), double seconds, TimingClock clock) {
  constexpr int kRuns = 10;
  const auto run = [&](std::size_t rounds, double* units) {
    const double start = now_seconds(clock);
    *units = probe(rounds);
    return now_seconds(clock) - start;
  };
  double units = 0.0;
  std::size_t rounds = 1 << 14;
  const double t = run(rounds, &units);
  rounds = std::max<std::size_t>(
      rounds, static_cast<std::size_t>(static_cast<double>(rounds) * seconds / kRuns / std::max(t, 1e-9)));
  double best = 0.0;
  for (int i = 0; i < kRuns; ++i) {
    const double seconds_taken = run(rounds, &units);
    best = std::max(best, units / std::max(seconds_taken, 1e-12));
  }
  return best;
}

}  // namespace seatorch::bench
