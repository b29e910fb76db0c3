// `seatorch bench int8`: images per second of the float model and of the integer model on
// every int8 kernel this CPU has, on the same test images, and the speed-up of the best
// int8 path over the float path. Each path makes one timed pass over the images per round,
// after an untimed one, the paths in turn (bench::time_interleaved), so all of them see the
// same machine load; each figure is the path's median pass. Both sides run on one thread,
// whatever the thread count (core/parallel.hpp).
// Each path also gets its ceiling: the images per second it would reach if every multiply-add
// of the model ran at the peak of the path's own multiply instruction, measured in the same
// run by that instruction's probe in registers (for float the FMA probe of the matmul kernel
// the float path runs, which SEATORCH_KERNEL may have chosen; Int8Kernel::dot_probe for an
// int8 kernel), over the model's multiply-adds per image (no padding counted).
// Deliberately not here: accuracy (seatorch eval/quantize).
#pragma once

#include "seatorch/bench/timing.hpp"
#include "seatorch/data/registry.hpp"
#include "seatorch/quant/evaluate.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace seatorch::bench {

struct Int8BenchOptions {
  std::filesystem::path float_model = "seatorch-out/model.safetensors";
  std::filesystem::path int8_model = "seatorch-out/model.int8.safetensors";
  data::DataOptions data;      // name empty: the data set recorded in the int8 model
  std::size_t images = 10000;  // the first N test images (fewer if the set is smaller)
  std::size_t reps = 5;        // timed passes per path, interleaved (the median is reported)
  TimingClock clock = TimingClock::kThreadCpu;
};

struct PathCeiling {
  std::string probe;               // what set it: "avx512 FMA", "avx512vnni dot"
  double peak = 0.0;               // the probe's rate, in `unit`
  std::string unit;                // "FLOP/s" for float, "products/s" (u8 x s8) for int8
  double images_per_second = 0.0;  // the path's ceiling on this model

  // The share of the ceiling a path reaching `rate` images per second runs at, in percent.
  [[nodiscard]] double percent_of(double rate) const { return 100.0 * rate / images_per_second; }
};

struct Int8BenchReport {
  std::string cpu;  // this_cpu(): what the figures were measured on
  std::string dataset;
  std::string architecture;
  std::size_t images = 0;
  std::vector<quant::Throughput> paths;              // float first, then the int8 kernels; median passes
  std::size_t multiply_adds = 0;                     // per image, all layers: sum of inputs x outputs
  std::vector<std::optional<PathCeiling>> ceilings;  // per path; none where there is no probe (ref)
  double best_int8_speedup = 0.0;                    // best int8 images/s over float images/s
  std::size_t reps = 0;
  TimingClock clock = TimingClock::kThreadCpu;
};

Int8BenchReport run_int8_bench(const Int8BenchOptions& options);

}  // namespace seatorch::bench
