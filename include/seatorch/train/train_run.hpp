// One `seatorch train` run as a library call: load the data set, train with the chosen
// engine (engine_run.hpp), and write the outputs (train_outputs.hpp):
//   <out>                       the checkpoint (safetensors, PyTorch nn.Sequential names)
//   <dir of out>/metrics.json   the configuration, per-epoch history, final figures
//   <dir of out>/loss.svg, accuracy.svg, confusion.svg
// or, when callbacks.should_stop interrupts a tensor-engine run, only
//   <dir of out>/resume.safetensors   (resume.hpp), which options.resume continues;
// a run that completes removes a resume file left beside its checkpoint (it is stale then).
// Every file is written atomically. The test set is evaluated once, by the engine, on the
// final weights. Deliberately not here: terminal output (the CLI reports through the
// callbacks and the summary).
#pragma once

#include "seatorch/data/registry.hpp"
#include "seatorch/model/float_mlp.hpp"
#include "seatorch/train/engine_run.hpp"
#include "seatorch/train/tensor_trainer.hpp"
#include "seatorch/train/train_result.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace seatorch::train {

struct ResumeState;  // resume.hpp

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
  // The resume file's contents when the caller has read it already (the CLI does, for its
  // defaults); otherwise run_training reads `resume`.
  std::shared_ptr<const ResumeState> resume_state;
  bool write_outputs = true;  // false: train and report only
  // Before training, write the augmentation examples (augment/example_grid.hpp) of this
  // run's seed and settings into this directory, as kExamplesFile.
  std::optional<std::filesystem::path> save_examples;
};

// The file name save_examples writes in its directory.
inline constexpr std::string_view kExamplesFile = "augmented-examples.png";

struct TrainRunSummary {
  std::string dataset;
  Engine engine = Engine::kTensor;
  std::string kernel;                          // the matmul kernel that trained it
  model::FloatMlp model;                       // the trained weights: what the checkpoint holds
  TrainResult training;                        // history: every epoch, a resumed run's earlier ones included
  std::vector<std::filesystem::path> written;  // files written, checkpoint first
  // should_stop ended the run early (training.stopped): only the resume file
  // (written.front()) was written, at training.position, and no evaluation was made.
  [[nodiscard]] bool interrupted() const { return training.stopped; }

  // The --json object: dataset, engine, architecture, epochs, steps, test_accuracy,
  // train_accuracy, final_loss, train_seconds, model, ... (see README).
  [[nodiscard]] nlohmann::json to_json() const;
};

struct TrainRunCallbacks : EngineCallbacks {};

TrainRunSummary run_training(const TrainRunOptions& options, const TrainRunCallbacks& callbacks = {});

}  // namespace seatorch::train
