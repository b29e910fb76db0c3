// The training benchmark: the same MLP and SGD recipe through both engines.
#include "seatorch/bench/train_bench.hpp"

#include "seatorch/kernels/matmul.hpp"
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

AugmentBench augment_bench(const data::DataSplit& data, std::uint64_t seed) {
  train::TensorTrainConfig config = train::default_tensor_config(data.name);
  config.epochs = 1;
  config.seed = seed;
  config.evaluate_each_epoch = false;
  config.augment = train::find_recipe("best").config().augment;
  const train::TensorTrainOutput out = train::train_tensor(data, config);
  const double augment = out.result.phases.augment;
  return {out.model.architecture(), augment::augment_list(config.augment), augment, out.result.seconds - augment};
}

}  // namespace

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
  config.evaluate_each_epoch = false;
  const train::TensorTrainOutput tensor = train::train_tensor(data, config);
  // Before the scalar engine and the augmentation epoch: the peak of loading and training.
  const std::size_t training_peak = peak_rss_bytes();

  TrainBenchReport report;
  report.dataset = data.name;
  report.architecture = tensor.model.architecture();
  report.kernel = std::string(kernels::selected_kernel());
  report.batch = options.batch;
  report.epochs = options.epochs;
  report.train_size = tensor.result.train_size;
  const auto epochs = static_cast<double>(options.epochs);
  report.seconds_per_epoch = tensor.result.seconds / epochs;
  const train::PhaseSeconds& p = tensor.result.phases;
  report.phases_per_epoch = {p.data / epochs, p.forward / epochs, p.backward / epochs, p.optimizer / epochs};
  report.tensor_us_per_sample = tensor.result.us_per_sample;
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
