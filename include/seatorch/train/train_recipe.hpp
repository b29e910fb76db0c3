// The training recipe and the per-epoch record as JSON: the schema that the resume file's
// "config" and "history" and metrics.json's share. Writing and reading round-trip exactly
// (doubles are JSON numbers with round-trip precision). The readers check every field's
// presence and type; `source` words the error of the file that carries them.
// Deliberately not here: the files that carry them (resume.hpp, train_outputs.hpp).
#pragma once

#include "seatorch/core/json_fields.hpp"
#include "seatorch/train/tensor_trainer.hpp"
#include "seatorch/train/train_result.hpp"

#include <nlohmann/json.hpp>

namespace seatorch::train {

nlohmann::json train_config_json(const TensorTrainConfig& config);
TensorTrainConfig train_config_from_json(const nlohmann::json& json, const core::JsonSource& source);

nlohmann::json train_epoch_json(const TrainEpoch& epoch);
// `where` names the entry in messages ("history[3]").
TrainEpoch train_epoch_from_json(const nlohmann::json& json, const core::JsonSource& source, std::string where);

}  // namespace seatorch::train
