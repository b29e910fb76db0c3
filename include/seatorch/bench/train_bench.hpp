// `seatorch bench train`: what training costs, in numbers. Seconds per MNIST epoch of the
// tensor engine with a breakdown (data, forward, backward, optimizer, and the test set's
// evaluation after each epoch, which the epoch time leaves out), the process's peak
// memory after loading and training (before the runs below), the scalar engine's
// microseconds per sample on a small subset of the same data and the same MLP, beside the
// tensor engine's, and what augmentation adds to an epoch of the default model (the `best`
// recipe's transforms in one epoch of 784-256-128-10, Adam, batch 128). Both tensor-engine
// epochs are also given as GFLOPS over their matrix products and as a share of the FMA peak
// of the cores their threads use (core/parallel.hpp), and the tensor epochs' products one
// kind at a time, each call timed as training ran it (kernels/product_log.hpp).
// Deliberately not here: PyTorch (see scripts/compare-pytorch.py) and printing.
#pragma once

#include "seatorch/bench/cpu_distance.hpp"
#include "seatorch/bench/matmul_bench.hpp"
#include "seatorch/kernels/product_log.hpp"
#include "seatorch/train/tensor_trainer.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
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
  bool augmentation = true;  // also time the augmentation epoch
};

// One kind of product in the tensor engine's epochs, per epoch (the mean over the epochs).
struct EpochProduct {
  kernels::ProductKind kind;
  double calls = 0.0;
  double seconds = 0.0;  // wall time of the calls, their splits across threads included
  double flops = 0.0;    // done by the calls (a sparse product's nonzeros' only)
};

// One epoch of the data set's default recipe with the `best` recipe's augmentation.
struct AugmentBench {
  std::string architecture;
  std::string optimizer;  // the recipe's, as train's --opt names it
  std::size_t batch = 0;
  std::string augment;                 // the transforms, as --augment lists them
  double augment_seconds = 0.0;        // transforming the epoch's images (on more than one thread,
                                       // those the threads had not transformed while they waited)
  double rest_seconds = 0.0;           // the rest of the epoch's training: what it costs without them
  double product_flops = 0.0;          // done by the epoch's matrix products (the product log's)
  double dense_product_flops = 0.0;    // what they would be with no product sparse (mlp_product_flops)
  double product_seconds = 0.0;        // those products timed one by one as training ran them
  std::vector<EpochProduct> products;  // the epoch's training products, the most time first (not
                                       // the elastic transform's smoothing: augment_seconds has it)
  [[nodiscard]] double share() const { return rest_seconds > 0.0 ? augment_seconds / rest_seconds : 0.0; }
};

// The FLOPs of one training epoch's matrix products for an MLP of layer sizes `sizes` (input
// first) on `samples` samples: per layer the forward X·Wᵀ and the weight gradient dYᵀ·X, and
// for every layer but the first the input gradient dY·W, each 2 * in * out per sample.
double mlp_product_flops(const std::vector<std::size_t>& sizes, std::size_t samples);

struct TrainBenchReport {
  std::string cpu;  // this_cpu(): what the figures were measured on
  std::string dataset;
  std::string architecture;
  std::string kernel;     // the matmul kernel used
  std::string optimizer;  // as train's --opt names it
  double momentum = 0.0;
  std::size_t batch = 0;
  std::size_t epochs = 0;
  std::size_t train_size = 0;
  std::size_t test_size = 0;
  std::size_t threads = 1;               // core::threads() during the run
  std::optional<FmaPeak> peak;           // of the cores the threads use, probed before and after the epochs
  std::optional<CpuPlacement> cpus;      // with two threads or more, around the epochs
  double product_flops = 0.0;            // per epoch, done (the product log's: sparse ones count their nonzeros)
  double dense_product_flops = 0.0;      // per epoch, with no product sparse (mlp_product_flops)
  double seconds_per_epoch = 0.0;        // tensor engine, training only: the median epoch
  std::vector<double> epoch_seconds;     // every epoch's, in order
  train::PhaseSeconds phases_per_epoch;  // its breakdown, the mean over the epochs
  double evaluation_per_epoch = 0.0;     // the test set's evaluation after each epoch, not in the epoch time
  std::vector<EpochProduct> products;    // the epochs' products, the most time first
  double product_seconds = 0.0;          // their time per epoch
  double outside_products = 0.0;         // forward and backward per epoch less the products in them
  double tensor_us_per_sample = 0.0;
  double test_accuracy = 0.0;  // after the run, as a sanity check
  std::size_t scalar_samples = 0;
  double scalar_us_per_sample = 0.0;
  double scalar_nodes_per_sample = 0.0;  // graph nodes built per training sample
  double scalar_to_tensor = 0.0;         // scalar us/sample over tensor us/sample
  std::size_t peak_rss_bytes = 0;        // the process's high-water mark after loading and the tensor epochs
  std::optional<AugmentBench> augmentation;
};

TrainBenchReport run_train_bench(const TrainBenchOptions& options);

}  // namespace seatorch::bench
