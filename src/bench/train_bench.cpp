// The training benchmark: the same MLP and SGD recipe through both engines, and one epoch of
// the default recipe with augmentation. Deliberately not here: printing (cli/bench_train.cpp).
#include "seatorch/bench/train_bench.hpp"

#include "seatorch/bench/machine.hpp"
#include "seatorch/bench/timing.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/data/registry.hpp"
#include "seatorch/kernels/matmul.hpp"
#include "seatorch/kernels/product_log.hpp"
#include "seatorch/train/recipes.hpp"
#include "seatorch/train/scalar_trainer.hpp"

#include <sys/resource.h>

#include <algorithm>

namespace seatorch::bench {
namespace {

std::size_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<std::size_t>(usage.ru_maxrss) * 1024;  // Linux reports kilobytes
}

// The log's kinds of product as means per epoch, the most time first.
std::vector<EpochProduct> epoch_products(const std::vector<kernels::ProductRecord>& records, double epochs) {
  std::vector<EpochProduct> products;
  for (const kernels::ProductRecord& r : records) {
    products.push_back({.kind = r.kind,
                        .calls = static_cast<double>(r.calls) / epochs,
                        .seconds = r.seconds / epochs,
                        .flops = r.flops / epochs});
  }
  std::stable_sort(products.begin(), products.end(),
                   [](const EpochProduct& a, const EpochProduct& b) { return a.seconds > b.seconds; });
  return products;
}

AugmentBench augment_bench(const data::DataSplit& data, std::uint64_t seed) {
  train::TensorTrainConfig config = train::default_tensor_config(data.name);
  config.epochs = 1;
  config.seed = seed;
  config.evaluate_each_epoch = false;
  config.augment = train::find_recipe("best").config().augment;
  const train::TensorTrainOutput out = train::train_tensor(data, config);
  const double augment = out.result.phases.augment;
  return {out.model.architecture(),
          std::string(train::optimizer_name(config.optimizer)),
          config.batch,
          augment::augment_list(config.augment),
          augment,
          out.result.seconds - augment,
          kernels::total_flops(out.result.products),
          mlp_product_flops(out.model.sizes(), out.result.samples),
          kernels::total_seconds(out.result.products),
          epoch_products(out.result.products, 1.0)};
}

}  // namespace

double mlp_product_flops(const std::vector<std::size_t>& sizes, std::size_t samples) {
  double per_sample = 0.0;
  for (std::size_t l = 0; l + 1 < sizes.size(); ++l) {
    const double products = l == 0 ? 2.0 : 3.0;  // forward, weight gradient, input gradient
    per_sample += products * 2.0 * static_cast<double>(sizes[l]) * static_cast<double>(sizes[l + 1]);
  }
  return per_sample * static_cast<double>(samples);
}

TrainBenchReport run_train_bench(const TrainBenchOptions& options) {
  data::DataOptions data_options;
  data_options.name = "mnist";
  data_options.data_dir = options.data_dir;
  const data::DataSplit data = data::load_dataset(data_options);

  // The recipe of compare-pytorch.py: SGD, momentum 0.9, lr 0.1, constant rate.
  train::TensorTrainConfig config;
  config.hidden = options.hidden;
  config.epochs = options.epochs;
  config.batch = options.batch;
  config.optimizer = train::OptimizerKind::kSgd;
  config.lr = 0.1;
  config.momentum = 0.9;
  config.schedule = {train::ScheduleKind::kConstant};
  config.seed = options.seed;
  config.evaluate_each_epoch = true;  // as `seatorch train` does; timed apart from training
  const std::optional<FmaPeak> peak_before = measure_fma_peak(0.05, TimingClock::kWall, core::threads());
  const PlacementWatch placement(core::threads());
  const train::TensorTrainOutput tensor = train::train_tensor(data, config);
  const std::optional<CpuPlacement> cpus = placement.finish();
  // Before the scalar engine and the augmentation epoch: the peak of loading and training.
  const std::size_t training_peak = peak_rss_bytes();

  TrainBenchReport report;
  report.dataset = data.name;
  report.architecture = tensor.model.architecture();
  report.kernel = std::string(kernels::selected_kernel());
  report.optimizer = std::string(train::optimizer_name(config.optimizer));
  report.momentum = config.momentum;
  report.batch = options.batch;
  report.epochs = options.epochs;
  report.train_size = tensor.result.train_size;
  report.test_size = data.test.size();
  report.cpu = this_cpu();
  report.threads = core::threads();
  report.peak = higher_probe(peak_before, measure_fma_peak(0.05, TimingClock::kWall, report.threads), &FmaPeak::gflops);
  report.cpus = cpus;
  const auto epochs = static_cast<double>(options.epochs);
  report.product_flops = kernels::total_flops(tensor.result.products) / epochs;
  report.dense_product_flops = mlp_product_flops(tensor.model.sizes(), report.train_size);
  // The median epoch: on a machine whose speed drifts, one slow epoch does not move it.
  for (const train::TrainEpoch& e : tensor.result.history) report.epoch_seconds.push_back(e.seconds);
  report.seconds_per_epoch = median(report.epoch_seconds);
  const train::PhaseSeconds& p = tensor.result.phases;
  report.phases_per_epoch = {.data = p.data / epochs,
                             .augment = p.augment / epochs,
                             .forward = p.forward / epochs,
                             .backward = p.backward / epochs,
                             .optimizer = p.optimizer / epochs};
  for (const train::TrainEpoch& e : tensor.result.history) report.evaluation_per_epoch += e.eval_seconds / epochs;
  report.products = epoch_products(tensor.result.products, epochs);
  report.product_seconds = kernels::total_seconds(tensor.result.products) / epochs;
  // Every product runs in the forward or the backward phase (the optimizer has none).
  report.outside_products = report.phases_per_epoch.forward + report.phases_per_epoch.backward - report.product_seconds;
  report.tensor_us_per_sample = 1e6 * report.seconds_per_epoch / static_cast<double>(report.train_size);
  report.test_accuracy = tensor.result.test.accuracy();

  // The scalar engine on the first samples only: the same architecture, batch and rate
  // (its SGD has no momentum; the cost per sample is the graph, not the update).
  const std::size_t n = std::min(options.scalar_samples, data.train.size());
  const data::Dataset& full = data.train;
  data::DataSplit subset{data.name, full.slice(0, n), full.slice(0, 0)};
  train::ScalarTrainConfig scalar;
  scalar.hidden = options.hidden;
  scalar.activation = scalar::Activation::kRelu;
  scalar.epochs = 1;
  scalar.batch = options.batch;
  scalar.lr = 0.1;
  scalar.seed = options.seed;
  const train::ScalarTrainResult s = train::train_scalar(subset, scalar);
  report.scalar_samples = subset.train.size();
  const auto samples = static_cast<double>(report.scalar_samples);
  report.scalar_us_per_sample = s.seconds / samples * 1e6;
  report.scalar_nodes_per_sample = static_cast<double>(s.nodes) / samples;
  report.scalar_to_tensor = report.scalar_us_per_sample / report.tensor_us_per_sample;
  if (options.augmentation) report.augmentation = augment_bench(data, options.seed);
  report.peak_rss_bytes = training_peak;
  return report;
}

}  // namespace seatorch::bench
