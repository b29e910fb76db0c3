// Float checkpoints <-> FloatMlp. A checkpoint is a safetensors file laid out as the state
// dict of a PyTorch nn.Sequential(Linear, ReLU, Linear, ReLU, ..., Linear):
//   "0.weight" F32 (out, in), "0.bias" F32 (out), "2.weight", "2.bias", "4.weight", ...
// (the ReLUs at odd positions have no parameters), so `model.load_state_dict(load_file(f))`
// works in PyTorch and a file PyTorch saved that way loads here. Metadata written:
//   "format": "pt"  (what PyTorch's tools write),  "architecture": "784-256-128-10",
//   "activation": "relu"  plus whatever the caller adds (dataset, epochs, ...).
// Reading checks names, dtypes, shapes (they must chain) and values (finite), and rejects
// an int8 model (quant/int8_file.hpp) with a message saying which kind of file it is.
// Deliberately not here: optimizer state and training history (metrics.json holds those).
#pragma once

#include "seatorch/io/safetensors.hpp"
#include "seatorch/model/float_mlp.hpp"
#include "seatorch/nn/state_dict.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace seatorch::model {

// The model as a checkpoint; `metadata` is added to the keys above (which it may not override).
io::SafetensorsFile float_checkpoint(const FloatMlp& model, const std::map<std::string, std::string>& metadata = {});
// The model in a checkpoint; `source` names the file in errors.
FloatMlp float_mlp_from_checkpoint(const io::SafetensorsFile& file, std::string_view source);

void save_float_checkpoint(const std::filesystem::path& path, const FloatMlp& model,
                           const std::map<std::string, std::string>& metadata = {});
FloatMlp load_float_checkpoint(const std::filesystem::path& path);

}  // namespace seatorch::model
