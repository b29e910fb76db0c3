// Warm-up, adaptive repetitions, median (see timing.hpp).
#include "seatorch/bench/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace seatorch::bench {
namespace {

double seconds_for(const std::function<void()>& work, std::size_t calls) {
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < calls; ++i) work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

Timing time_median(const std::function<void()>& work, const TimingOptions& options) {
  const double first = seconds_for(work, 1);  // warm-up and calibration
  // Aim 20% over the minimum so that jitter rarely leaves a sample short.
  const double wanted = 1.2 * options.min_sample_seconds;
  const auto calls = static_cast<std::size_t>(std::max(1.0, std::ceil(wanted / std::max(first, 1e-9))));

  std::vector<double> per_call(std::max<std::size_t>(options.samples, 1));
  for (double& t : per_call) t = seconds_for(work, calls) / static_cast<double>(calls);
  std::sort(per_call.begin(), per_call.end());
  const std::size_t n = per_call.size();
  const double median = n % 2 == 1 ? per_call[n / 2] : 0.5 * (per_call[n / 2 - 1] + per_call[n / 2]);
  return {median, calls, n};
}

}  // namespace seatorch::bench
