// `seatorch bench train`: what training costs, in numbers. Seconds per MNIST epoch of the
// tensor engine with a breakdown (data, forward, backward, optimizer), the process's peak
// memory, and the scalar engine's microseconds per sample on a small subset of the same
// data and the same MLP, beside the tensor engine's. Deliberately not here: PyTorch (see
// scripts/compare-pytorch.py) and printing.
#pragma once

#include "seatorch/data/registry.hpp"
#include "seatorch/train/tensor_trainer.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace seatorch::bench {

struct TrainBenchOptions {
  std::filesystem::path data_dir;  // MNIST's files; empty: the usual search
  std::vector<std::size_t> hidden{128};
  std::size_t batch = 64;
  std::size_t epochs = 1;
  std::size_t scalar_samples = 256;  // the scalar engine's subset (first N samples)
  std::uint64_t seed = 0;
};

struct TrainBenchReport {
  std::string dataset;
  std::string architecture;
  std::string kernel;  // the matmul kernel used
  std::size_t batch = 0;
  std::size_t epochs = 0;
  std::size_t train_size = 0;
  double seconds_per_epoch = 0.0;        // tensor engine, training only
  train::PhaseSeconds phases_per_epoch;  // its breakdown
  double tensor_us_per_sample = 0.0;
  double test_accuracy = 0.0;  // after the run, as a sanity check
  std::size_t scalar_samples = 0;
  double scalar_us_per_sample = 0.0;
  double scalar_nodes_per_sample = 0.0;  // graph nodes built per training sample
  double scalar_to_tensor = 0.0;         // scalar us/sample over tensor us/sample
  std::size_t peak_rss_bytes = 0;        // the process's high-water mark
};

TrainBenchReport run_train_bench(const TrainBenchOptions& options);

}  // namespace seatorch::bench
