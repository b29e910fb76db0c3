// The tensor engine's training loop: mini-batch training of an MLP classifier on a
// DataSplit with SGD/Adam/AdamW, a learning-rate schedule, dropout, a validation split,
// per-step and per-epoch callbacks, and a per-epoch history.
//
// Determinism: one Rng(seed) draws the initial weights (in the scalar engine's order) and
// then each epoch's shuffle; dropout masks come from a second Rng derived from the seed, and
// augmentation draws each image's transform from its own (seed, epoch, sample) stream.
// Every loop split across threads gives each output element the same operations in the same
// order on any thread count (core/parallel.hpp), and an image's augmentation writes only its
// own row whichever thread runs it, so the same data and configuration give bit-identical
// weights on one thread or several. The training set is the first `limit` samples of
// data.train; the last `validation` fraction of those is held out for validation (never
// trained on).
// Stopping and resuming: callbacks.should_stop is asked after every optimizer step; when it
// says yes the run returns at that step boundary with its position (result.position), the
// model and the optimizer state. A run started from those with `start` = that position
// replays the finished epochs' shuffles and dropout draws, the interrupted epoch's shuffle,
// skips its done steps (advancing the dropout stream past them) and keeps the schedule's
// step index, so it ends with the weights of a run never interrupted, bit for bit.
// Deliberately not here: files (checkpoints, metrics, plots, the resume file), signals and
// terminal output; the CLI and train_run.hpp do those through the callbacks and the output.
#pragma once

#include "seatorch/augment/augmenter.hpp"
#include "seatorch/data/dataset.hpp"
#include "seatorch/kernels/product_log.hpp"
#include "seatorch/nn/mlp.hpp"
#include "seatorch/nn/state_dict.hpp"
#include "seatorch/train/lr_schedule.hpp"
#include "seatorch/train/optimizer.hpp"
#include "seatorch/train/train_result.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace seatorch::train {

struct TensorTrainConfig {
  std::vector<std::size_t> hidden{256, 128};  // hidden-layer widths
  std::size_t epochs = 10;
  std::size_t batch = 128;  // samples per step; 0 = the whole training set
  OptimizerKind optimizer = OptimizerKind::kAdam;
  double lr = 1e-3;
  double momentum = 0.9;  // SGD only
  bool nesterov = false;  // SGD only
  double weight_decay = 0.0;
  LrSchedule schedule{ScheduleKind::kCosine};
  double dropout = 0.0;            // after each hidden ReLU, in [0, 1)
  augment::AugmentConfig augment;  // of the training images only (augment/augmenter.hpp)
  std::uint64_t seed = 0;
  std::size_t limit = 0;                                 // use the first N training samples; 0 = all
  double validation = 0.0;                               // fraction of the (limited) training set held out, in [0, 1)
  std::size_t max_steps = 0;                             // stop after this many optimizer steps; 0 = no limit
  bool shuffle = true;                                   // false: every epoch in the files' order
  bool evaluate_each_epoch = true;                       // test (and validation) accuracy after every epoch
  std::optional<nn::StateDict> initial_parameters;       // instead of the seeded init
  std::optional<nn::StateDict> initial_optimizer_state;  // e.g. from a checkpoint
  // Resuming: where the saved run stood (with its parameters and optimizer state above).
  // The steps before it are replayed without training (see the file comment).
  TrainPosition start;
  // The training steps' forward pass, x (batch, features) -> logits; empty: model.forward(x).
  // Quantization-aware fine-tuning (quant/qat.hpp) puts fake quantization here. Every
  // evaluation (per epoch and final) is the float evaluator's (model/evaluate.hpp).
  std::function<tensor::Tensor(nn::Mlp& model, const tensor::Tensor& x)> train_forward;
};

// The recommended recipe for a data set (the CLI's defaults).
TensorTrainConfig default_tensor_config(std::string_view dataset);

struct TensorStepReport {
  std::size_t step = 0;           // 1-based, over the whole run
  std::size_t epoch = 0;          // 1-based
  std::size_t step_in_epoch = 0;  // 1-based
  std::size_t steps_per_epoch = 0;
  double loss = 0.0;  // this batch's mean loss
  double lr = 0.0;    // the rate this step used
};

// The live model and optimizer at the end of an epoch: what a checkpoint saves.
struct TensorTrainState {
  const nn::Mlp& model;
  const Optimizer& optimizer;
};

struct TensorTrainCallbacks {
  std::function<void(const TensorStepReport&)> on_step;
  std::function<void(const TrainEpoch&)> on_epoch;
  // After on_epoch; resuming from its state with start.epoch = report.epoch continues the run.
  std::function<void(const TrainEpoch&, const TensorTrainState&)> on_checkpoint;
  // Cancellation, asked after every optimizer step (after on_step) and after every epoch:
  // true stops the run there (e.g. a flag set by a signal handler). After an epoch's last
  // step it is asked once the epoch has been reported, so a stopped run never leaves an
  // epoch trained but unreported; after the run's last step it is not asked at all.
  std::function<bool()> should_stop;
};

// Where training time goes, summed over steps (the five add up to the training time, less
// the callbacks and bookkeeping).
struct PhaseSeconds {
  double data = 0.0;       // gathering the batch
  double augment = 0.0;    // transforming its images (0 without augmentation); on more than one
                           // thread, those not transformed in the previous step's idle time
  double forward = 0.0;    // model forward and loss
  double backward = 0.0;   // zero_grad and backward
  double optimizer = 0.0;  // the optimizer step
};

// The tensor engine's result: the shared one, plus where its time went.
struct TensorTrainResult : TrainResult {
  std::size_t validation_size = 0;
  PhaseSeconds phases;
  // The training steps' matrix products, each kind with its calls and wall time (evaluations
  // are not in it): the products' share of the phases above.
  std::vector<kernels::ProductRecord> products;
};

struct TensorTrainOutput {
  nn::Mlp model;
  TensorTrainResult result;
  nn::StateDict optimizer_state;  // for checkpoints and resuming
};

// Throws InputError when the configuration cannot work with the data.
TensorTrainOutput train_tensor(const data::DataSplit& data, const TensorTrainConfig& config,
                               const TensorTrainCallbacks& callbacks = {});

}  // namespace seatorch::train
