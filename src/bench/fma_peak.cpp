// The FMA peak: the fastest ISA probe, times the cores a run's threads can use
// (bench/fma_peak.hpp).
#include "seatorch/bench/fma_peak.hpp"

#include "seatorch/kernels/kernel_registry.hpp"

#include <algorithm>
#include <thread>

namespace seatorch::bench {

std::optional<FmaPeak> measure_fma_peak(double seconds, TimingClock clock, std::size_t threads) {
  std::optional<FmaPeak> best;
  for (const kernels::KernelInfo& kernel : kernels::available_kernels()) {
    if (kernel.fma_probe == nullptr) continue;
    const double gflops = best_probe_rate(kernel.fma_probe, seconds, clock) / 1e9;
    if (!best || gflops > best->gflops) best = FmaPeak{std::string(kernel.name), gflops};
  }
  if (best) best->gflops *= static_cast<double>(peak_cores(threads));
  return best;
}

std::size_t peak_cores(std::size_t threads) {
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  return std::clamp<std::size_t>(threads, 1, cores);
}

}  // namespace seatorch::bench
