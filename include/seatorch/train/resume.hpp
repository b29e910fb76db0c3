// The resume file of an interrupted `seatorch train` run (tensor engine): everything needed
// to continue it bit for bit, in one safetensors file written atomically, by default
// resume.safetensors beside the checkpoint (default_resume_path):
//   "model.0.weight", "model.0.bias", ...   F32  the weights (nn.Sequential names after "model.")
//   "optimizer.step", "optimizer.0.weight.exp_avg", ...   F32  Optimizer::state() after "optimizer."
// Metadata (JSON values are compact JSON text):
//   "format": "seatorch-resume", "format_version": "1",
//   "data":     {"name", "data_dir", "csv", "label_col"}  where the training data came from
//   "config":   the recipe (train_recipe.hpp), the seed included
//   "position": {"epoch", "step_in_epoch", "loss_sum", "samples", "correct", "seconds"}
//   "history":  the finished epochs' records, as in metrics.json
//   "train_data": {"samples", "features", "crc32"}  the training set's fingerprint
//   "out": the interrupted run's --out,  plus "data_crc32" (io/safetensors.hpp)
// It is a file of its own, not extra tensors in the checkpoint, so that the checkpoint stays
// loadable by PyTorch's strict load_state_dict. Doubles are stored as JSON numbers, which
// nlohmann writes with round-trip precision, so the loss sums come back exactly.
// Deliberately not here: the scalar engine (its runs are not resumable) and deciding when to
// stop (the caller's should_stop, tensor_trainer.hpp).
#pragma once

#include "seatorch/data/dataset.hpp"
#include "seatorch/io/safetensors.hpp"
#include "seatorch/nn/state_dict.hpp"
#include "seatorch/train/tensor_trainer.hpp"
#include "seatorch/train/train_recipe.hpp"
#include "seatorch/train/train_run.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

namespace seatorch::train {

inline constexpr std::string_view kResumeFormat = "seatorch-resume";
inline constexpr std::string_view kResumeFormatVersion = "1";

// What the run trained on, to refuse resuming on other data.
struct DataFingerprint {
  std::size_t samples = 0;
  std::size_t features = 0;
  std::uint32_t crc32 = 0;  // of the features as stored (pixel bytes or floats), then the labels' int32 bytes
  bool operator==(const DataFingerprint&) const = default;
};
DataFingerprint fingerprint(const data::Dataset& train);

struct ResumeState {
  TrainRunOptions options;  // data, engine (tensor), recipe and --out; init and resume unset
  TrainPosition position;
  std::vector<TrainEpoch> history;  // the finished epochs
  nn::StateDict model;              // "0.weight", "0.bias", ...
  nn::StateDict optimizer;          // Optimizer::state()
  DataFingerprint train_data;
};

// resume.safetensors in the directory of `out`.
std::filesystem::path default_resume_path(const std::filesystem::path& out);

io::SafetensorsFile resume_file(const ResumeState& state);
// Validates the layout, the JSON and the model (as a float checkpoint); `source` names the
// file in errors. The optimizer state is checked when the trainer loads it.
ResumeState resume_state_from_file(const io::SafetensorsFile& file, std::string_view source);

void save_resume_state(const std::filesystem::path& path, const ResumeState& state);
ResumeState load_resume_state(const std::filesystem::path& path);

// Throws one InputError (naming `source`) listing every setting of `requested` that differs
// from the interrupted run's, by its flag: "--lr 0.5 (the run used 0.001)". Compared: the
// data set's name and label column, the engine and every recipe field; not where the files
// are (checked by fingerprint instead) and not --out.
void check_resume_matches(const ResumeState& saved, const TrainRunOptions& requested, std::string_view source);
// Throws InputError unless `actual` is the fingerprint of the data the run trained on.
void check_resume_data(const ResumeState& saved, const DataFingerprint& actual, std::string_view source);

}  // namespace seatorch::train
