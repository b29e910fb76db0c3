// The files a finished training run leaves beside its checkpoint: the checkpoint itself,
// metrics.json (the recipe, the per-epoch history, the final figures and the confusion
// matrix) and the loss, accuracy and confusion plots, each written atomically.
// Deliberately not here: the resume file of an interrupted run (resume.hpp).
#pragma once

#include "seatorch/train/train_run.hpp"

namespace seatorch::train {

// Writes the outputs of `summary`'s run and appends their paths to summary.written.
void write_train_outputs(const TrainRunOptions& options, TrainRunSummary& summary);

}  // namespace seatorch::train
