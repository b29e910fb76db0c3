// Each CPU's speed alone, its FMA peak and the time of one sparse product, and the product's
// time on several CPUs at once (bench/cpu_speed.hpp).
#include "seatorch/bench/cpu_speed.hpp"

#include "seatorch/bench/cpu_set.hpp"
#include "seatorch/bench/fma_peak.hpp"
#include "seatorch/bench/timing.hpp"
#include "seatorch/core/rng.hpp"
#include "seatorch/kernels/kernel_registry.hpp"
#include "seatorch/kernels/matmul.hpp"

#include <algorithm>
#include <barrier>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>

namespace seatorch::bench {
namespace {

constexpr std::size_t kSide = 28;  // kSparseProbeDepth = kSide * kSide
// A ring of ink: full where a pixel's distance from the centre equals the radius, fading to
// nothing kInkHalfWidth pixels either side, as a pen stroke's edges do.
constexpr double kInkHalfWidth = 1.6;
// Each sample repeats the product for at least this long: some 200 products.
constexpr double kMinSampleSeconds = 0.01;
constexpr double kFmaProbeSeconds = 0.05;

// Digit r: a ring whose centre and radius move with r, so that the rows' nonzeros fall in
// different places, as a batch of digits' strokes do.
void draw_ring(std::size_t r, float* pixels) {
  const double cy = 14.0 + static_cast<double>(r * 5 % 7) - 3.0;
  const double cx = 14.0 + static_cast<double>(r * 3 % 7) - 3.0;
  const double radius = 5.0 + static_cast<double>(r % 4);
  for (std::size_t y = 0; y < kSide; ++y) {
    for (std::size_t x = 0; x < kSide; ++x) {
      const double d = std::hypot(static_cast<double>(y) - cy, static_cast<double>(x) - cx);
      const double ink = 1.0 - std::abs(d - radius) / kInkHalfWidth;
      pixels[y * kSide + x] = ink > 0.0 ? static_cast<float>(ink) : 0.0f;
    }
  }
}

}  // namespace

SparseProbe::SparseProbe()
    : x_(kSparseProbeRows * kSparseProbeDepth),
      w_(kSparseProbeWidth * kSparseProbeDepth),
      c_(kSparseProbeRows * kSparseProbeWidth) {
  static_assert(kSparseProbeDepth == kSide * kSide);
  for (std::size_t r = 0; r < kSparseProbeRows; ++r) draw_ring(r, x_.data() + r * kSparseProbeDepth);
  core::Rng rng(74);
  for (float& w : w_) w = static_cast<float>(rng.uniform(-0.05, 0.05));
  kernels::compress_rows(x_.data(), kSparseProbeRows, kSparseProbeDepth, kSparseProbeDepth, 1, a_);
  args_.a = a_.data();
  args_.b = w_.data();
  args_.ldb = kSparseProbeDepth;
  args_.tb = kernels::Transpose::kYes;  // Wᵀ, as the forward X·Wᵀ reads W stored (out, in)
  args_.n = kSparseProbeWidth;
  args_.c = c_.data();
  args_.ldc = kSparseProbeWidth;
}

// The kernel's own entry point, not kernels::sparse_matmul: that one splits a product this
// size across the pool's threads, and this measures one CPU.
void SparseProbe::run() { kernels::selected_kernel_info().sparse_matmul(args_, {}); }

std::optional<CpuSpeed> cpu_speed(std::size_t cpu) {
  std::optional<CpuSpeed> speed;
  std::exception_ptr error;
  // A thread of its own, so that the caller's affinity stays as it was.
  std::jthread([&] {
    if (!pin_this_thread(cpu)) return;
    try {
      const std::optional<FmaPeak> peak = measure_fma_peak(kFmaProbeSeconds, TimingClock::kThreadCpu);
      SparseProbe probe;
      const std::vector<Timing> timing =
          time_interleaved({[&] { probe.run(); }}, {kSparseProbeSamples, kMinSampleSeconds, TimingClock::kThreadCpu});
      speed = CpuSpeed{cpu, peak ? std::optional(peak->gflops) : std::nullopt, timing[0].seconds * 1e6, std::nullopt};
    } catch (...) {
      error = std::current_exception();
    }
  }).join();
  if (error) std::rethrow_exception(error);
  return speed;
}

std::vector<CpuSpeed> allowed_cpu_speeds() {
  std::vector<CpuSpeed> speeds;
  std::vector<std::size_t> cpus;  // the ones measured: those a thread could be pinned to
  for (const std::size_t cpu : allowed_cpus()) {
    if (const std::optional<CpuSpeed> s = cpu_speed(cpu)) {
      speeds.push_back(*s);
      cpus.push_back(cpu);
    }
  }
  if (cpus.size() < 2) return speeds;
  if (const std::optional<std::vector<double>> at_once = sparse_products_at_once(cpus)) {
    for (std::size_t i = 0; i < speeds.size(); ++i) speeds[i].sparse_product_at_once_us = (*at_once)[i];
  }
  return speeds;
}

std::optional<std::vector<double>> sparse_products_at_once(std::span<const std::size_t> cpus) {
  std::vector<double> us(cpus.size());
  std::vector<char> pinned(cpus.size(), 0);
  std::barrier start(static_cast<std::ptrdiff_t>(cpus.size()));
  std::mutex error_mutex;
  std::exception_ptr error;
  {
    std::vector<std::jthread> threads;
    for (std::size_t i = 0; i < cpus.size(); ++i) {
      threads.emplace_back([&, i] {
        const auto record = [&] {
          const std::lock_guard lock(error_mutex);
          if (!error) error = std::current_exception();
        };
        pinned[i] = pin_this_thread(cpus[i]) ? 1 : 0;
        std::optional<SparseProbe> probe;  // made and warmed before the start, where it runs
        try {
          probe.emplace();
          probe->run();
        } catch (...) {
          record();
        }
        start.arrive_and_wait();  // every thread arrives, whatever failed, or the others wait
        if (!pinned[i] || !probe) return;
        try {
          const std::vector<Timing> timing =
              time_interleaved({[&] { probe->run(); }}, {kSparseProbeSamples, kMinSampleSeconds, TimingClock::kWall});
          us[i] = timing[0].seconds * 1e6;
        } catch (...) {
          record();
        }
      });
    }
  }  // the threads join here
  if (error) std::rethrow_exception(error);
  if (std::find(pinned.begin(), pinned.end(), 0) != pinned.end()) return std::nullopt;
  return us;
}

}  // namespace seatorch::bench
