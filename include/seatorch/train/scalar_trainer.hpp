// Training loop for the scalar engine (seed milestones 4-6): mini-batch SGD on a Dataset.
//
// Per sample it builds the graph of (loss / batch), runs backward (parameter gradients
// accumulate across the batch), then truncates the arena back to the parameters; so memory
// is one sample's graph, however large the batch. Deliberately plain SGD: the optimizer
// zoo (momentum, Adam) belongs to the tensor engine.
#pragma once

#include "seatorch/data/dataset.hpp"
#include "seatorch/scalar/mlp.hpp"
#include "seatorch/train/train_result.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace seatorch::train {

struct ScalarTrainConfig {
  std::vector<std::size_t> hidden;  // hidden-layer widths
  scalar::Activation activation = scalar::Activation::kTanh;
  std::size_t epochs = 1;
  std::size_t batch = 0;  // samples per step; 0 = the whole training set
  double lr = 0.1;
  std::uint64_t seed = 0;
  bool shuffle = true;  // false: every epoch in the data set's order
  // Starting weights in Mlp::parameters() order; empty: the seeded initialization.
  std::vector<double> initial_parameters;
};

// A recipe known to work for the named data set (the CLI's defaults).
ScalarTrainConfig default_scalar_config(std::string_view dataset);

// The scalar engine's result: the shared one, plus its graph's size and the raw weights.
struct ScalarTrainResult : TrainResult {
  std::size_t nodes = 0;        // graph nodes built during training
  std::vector<double> weights;  // the trained parameters, in Mlp::parameters() order
};

using EpochCallback = std::function<void(const TrainEpoch&)>;

// Throws InputError when the configuration cannot work with the data (e.g. zero epochs).
ScalarTrainResult train_scalar(const data::DataSplit& data, const ScalarTrainConfig& config,
                               const EpochCallback& on_epoch = {});

}  // namespace seatorch::train
