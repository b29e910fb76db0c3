// The inference benchmark: float vs int8 on the same images, in interleaved rounds.
#include "seatorch/bench/int8_bench.hpp"

#include "seatorch/bench/machine.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/kernels/int8_kernels.hpp"
#include "seatorch/kernels/kernel_registry.hpp"
#include "seatorch/model/float_checkpoint.hpp"
#include "seatorch/model/model_file.hpp"
#include "seatorch/quant/int8_file.hpp"

#include <algorithm>

namespace seatorch::bench {
namespace {

// Seconds each probe runs (the best of ten short runs counts); each path's is probed before
// its passes and after, and the higher reading kept (higher_probe).
constexpr double kProbeSeconds = 0.2;

std::optional<PathCeiling> ceiling(const quant::InferencePath& path, std::size_t multiply_adds, TimingClock clock) {
  const auto per_image = static_cast<double>(multiply_adds);
  if (path.kernel.empty()) {  // float: 2 FLOPs per multiply-add
    // The probe of the matmul kernel the float path runs (SEATORCH_KERNEL may have chosen
    // avx2 on an AVX-512 CPU), not the CPU's best: a ceiling the path cannot reach is no yardstick.
    const kernels::KernelInfo* matmul = kernels::find_kernel(kernels::selected_kernel());
    if (matmul == nullptr || matmul->fma_probe == nullptr) return std::nullopt;
    const double flops = best_probe_rate(matmul->fma_probe, kProbeSeconds, clock);
    return PathCeiling{std::string(matmul->name) + " FMA", flops, "FLOP/s", flops / (2.0 * per_image)};
  }
  const kernels::Int8Kernel& kernel = kernels::int8_kernel(path.kernel);
  if (kernel.dot_probe == nullptr) return std::nullopt;
  const double products = best_probe_rate(kernel.dot_probe, kProbeSeconds, clock);
  return PathCeiling{path.kernel + " dot", products, "products/s", products / per_image};
}

}  // namespace

Int8BenchReport run_int8_bench(const Int8BenchOptions& options) {
  // One core's work on both sides: the INT8 engine runs on one thread, so the float path's
  // products do too, whatever SEATORCH_THREADS says (and the thread CPU clock stays honest).
  const core::ScopedThreads one_thread(1);
  const model::FloatMlp float_model = model::load_float_checkpoint(options.float_model);
  const quant::Int8ModelFile int8 = quant::load_int8_model(options.int8_model);
  if (float_model.architecture() != int8.model.architecture()) {
    throw core::option_error("float model",
                             "{} is {} but {} is {}: give the float model the int8 model was quantized from",
                             options.float_model.string(), float_model.architecture(), options.int8_model.string(),
                             int8.model.architecture());
  }
  data::DataOptions data_options = options.data;
  data_options.test_only = true;  // only the test images are used
  data_options.name = model::dataset_for(int8.metadata, options.int8_model.string(), data_options.name);
  const data::DataSplit data = data::load_dataset(data_options);
  const std::span<const std::uint8_t> pixels = data::image_pixels(data.test, "the int8 model");
  const std::size_t n = std::min(options.images, data.test.size());

  Int8BenchReport report;
  report.dataset = data.name;
  report.architecture = float_model.architecture();
  report.images = n;
  report.reps = options.reps;
  report.clock = options.clock;
  report.cpu = this_cpu();
  const std::vector<quant::InferencePath> paths = quant::inference_paths(
      float_model, int8.model, std::span<const std::uint8_t>(pixels).first(n * data.test.features), n);
  for (const quant::Int8Layer& layer : int8.model.layers) report.multiply_adds += layer.in * layer.out;
  std::vector<std::optional<PathCeiling>> ceilings_before;  // (paths)
  for (const quant::InferencePath& path : paths)
    ceilings_before.push_back(ceiling(path, report.multiply_adds, options.clock));
  std::vector<std::function<void()>> passes;
  for (const quant::InferencePath& path : paths) passes.push_back(path.pass);
  // A pass lasts milliseconds: one call per sample (no minimum) is enough for the clock.
  const std::vector<Timing> timings =
      time_interleaved(passes, {.samples = options.reps, .min_sample_seconds = 0.0, .clock = options.clock});
  for (std::size_t i = 0; i < paths.size(); ++i) {
    report.paths.push_back({paths[i].name, n, timings[i].seconds});
    report.ceilings.push_back(
        higher_probe(ceilings_before[i], ceiling(paths[i], report.multiply_adds, options.clock), &PathCeiling::peak));
  }
  const double float_rate = report.paths.front().images_per_second();
  for (std::size_t i = 1; i < report.paths.size(); ++i) {
    report.best_int8_speedup = std::max(report.best_int8_speedup, report.paths[i].images_per_second() / float_rate);
  }
  return report;
}

}  // namespace seatorch::bench
