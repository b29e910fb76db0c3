// What a training loop hands back, whichever engine ran it: the training stage's one result
// type. The tensor engine (tensor_trainer.hpp) and the scalar engine (scalar_trainer.hpp)
// extend it with what only they measure; a training run (train_run.hpp) keeps it as it is,
// with the float model the weights became. Every accuracy here comes from the one float
// evaluator (model/evaluate.hpp). Deliberately not here: how either engine trains.
#pragma once

#include "seatorch/model/evaluation.hpp"

#include <cstddef>
#include <optional>
#include <vector>

namespace seatorch::train {

// One finished epoch, as both engines report it (absent figures are not measured).
struct TrainEpoch {
  std::size_t epoch = 0;                      // 1-based
  double loss = 0.0;                          // mean training loss over the epoch's samples
  double train_accuracy = 0.0;                // running: from the epoch's own forward passes
  std::optional<double> test_accuracy;        // when evaluated each epoch (tensor engine)
  std::optional<double> validation_accuracy;  // when a validation split is used
  std::optional<double> lr;                   // the last step's rate (tensor engine)
  double seconds = 0.0;                       // training time, evaluations excluded
  std::size_t steps = 0;                      // optimizer steps in this epoch
  double eval_seconds = 0.0;                  // the epoch's evaluations
};

// Where a run stands: `epoch` epochs finished, then `step_in_epoch` steps of the next one,
// with that epoch's running sums so that its report comes out as if never interrupted.
struct TrainPosition {
  std::size_t epoch = 0;          // finished epochs
  std::size_t step_in_epoch = 0;  // steps done in epoch `epoch + 1`, below its steps per epoch
  double loss_sum = 0.0;          // those steps: sum of batch loss * batch rows
  std::size_t samples = 0;        // rows they trained on
  std::size_t correct = 0;        // their running correct predictions
  double seconds = 0.0;           // their training time
};

struct TrainResult {
  std::vector<TrainEpoch> history;  // the epochs finished (by this call, for an engine)
  double final_loss = 0.0;          // the last epoch's mean loss
  double train_accuracy = 0.0;      // of the final weights on the training part
  std::optional<double> validation_accuracy;
  model::Evaluation test;      // the final weights on the test set (empty when stopped)
  std::size_t steps = 0;       // optimizer steps of the whole run
  std::size_t samples = 0;     // training samples processed
  std::size_t train_size = 0;  // samples in the training part
  std::size_t parameters = 0;
  double seconds = 0.0;        // training time, evaluations excluded
  double us_per_sample = 0.0;  // seconds / samples, in microseconds
  // Stopped early (tensor engine, should_stop): the final evaluation was skipped and
  // `position` says where to resume.
  bool stopped = false;
  TrainPosition position;
};

}  // namespace seatorch::train
