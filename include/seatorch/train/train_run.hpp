// One `seatorch train` run as a library call: load the data set, train with the chosen
// engine, evaluate the final weights on the test set, and write the outputs:
//   <out>                       the checkpoint (safetensors, PyTorch nn.Sequential names)
//   <dir of out>/metrics.json   the configuration, per-epoch history, final figures
//   <dir of out>/loss.svg, accuracy.svg, confusion.svg
// or, when callbacks.should_stop interrupts a tensor-engine run, only
//   <dir of out>/resume.safetensors   (train/resume.hpp), which options.resume continues;
// a run that completes removes a resume file left beside its checkpoint (it is stale then).
// Every file is written atomically. The tensor engine is the default; the scalar engine
// trains the same MLP through the scalar Value graph with plain SGD (slowly: that is its
// point). Deliberately not here: terminal output (the CLI reports through the callbacks).
#pragma once

#include "seatorch/data/registry.hpp"
#include "seatorch/train/scalar_trainer.hpp"
#include "seatorch/train/tensor_trainer.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::train {

enum class Engine { kTensor, kScalar };
Engine parse_engine(std::string_view name);
std::string_view engine_name(Engine engine);

struct TrainRunOptions {
  data::DataOptions data;
  Engine engine = Engine::kTensor;
  TensorTrainConfig tensor;  // the recipe for either engine (the scalar engine uses hidden,
                             // epochs, batch, lr, seed, limit and shuffle; SGD only)
  std::filesystem::path out = "seatorch-out/model.safetensors";
  std::optional<std::filesystem::path> init;  // start from this checkpoint's weights
  // Continue the interrupted run saved in this resume file. Every setting above except the
  // data's location and `out` must equal the run's (InputError listing each difference).
  std::optional<std::filesystem::path> resume;
  bool write_outputs = true;                  // false: train and report only
};

// Per-epoch record shared by both engines (missing figures are absent in JSON).
struct TrainEpoch {
  std::size_t epoch = 0;
  double loss = 0.0;
  double train_accuracy = 0.0;
  std::optional<double> test_accuracy;
  std::optional<double> validation_accuracy;
  std::optional<double> lr;
  double seconds = 0.0;
};

struct TrainRunSummary {
  std::string dataset;
  Engine engine = Engine::kTensor;
  std::string architecture;      // "784-256-128-10"
  std::string kernel;            // the matmul kernel that trained it
  std::size_t epochs = 0;
  std::size_t steps = 0;
  std::size_t train_size = 0;
  std::size_t parameters = 0;
  double final_loss = 0.0;
  double train_accuracy = 0.0;
  double test_accuracy = 0.0;
  std::optional<double> validation_accuracy;
  double train_seconds = 0.0;    // training only, evaluations excluded
  double us_per_sample = 0.0;
  std::vector<double> per_class_accuracy;
  std::vector<std::size_t> confusion;  // (classes, classes): [true][predicted]
  std::vector<TrainEpoch> history;
  std::vector<std::filesystem::path> written;  // files written, checkpoint first
  // should_stop ended the run early: only the resume file (written.front()) was written, at
  // this position, and the figures above are not computed.
  bool interrupted = false;
  TrainPosition position;

  // The --json object: dataset, engine, architecture, epochs, steps, test_accuracy,
  // train_accuracy, final_loss, train_seconds, model, ... (see README).
  [[nodiscard]] nlohmann::json to_json() const;
};

struct TrainRunCallbacks {
  std::function<void(const TensorStepReport&)> on_step;  // tensor engine only
  std::function<void(const TrainEpoch&)> on_epoch;
  std::function<bool()> should_stop;  // tensor engine only: stop at this step boundary
};

// The data set's recipe for the engine (the CLI's defaults before flags override them).
TensorTrainConfig default_train_config(std::string_view dataset, Engine engine);

TrainRunSummary run_training(const TrainRunOptions& options, const TrainRunCallbacks& callbacks = {});

}  // namespace seatorch::train
