// One `seatorch eval` run as a library call: evaluate a float checkpoint or an int8 model
// file (told apart by the file's own metadata) on a data set's test part: accuracy,
// per-class accuracy and the confusion matrix. For an int8 model it can also dump one
// image's every layer (int32 accumulators and int8 outputs, from the reference model),
// the numbers the Mini NPU work compares against. Deliberately not here: printing.
#pragma once

#include "seatorch/data/registry.hpp"
#include "seatorch/model/evaluation.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace seatorch::eval {

struct EvalRunOptions {
  std::filesystem::path model = "seatorch-out/model.safetensors";
  data::DataOptions data;                 // data.name empty: the data set recorded in the model
  std::string kernel = "auto";            // int8 models: the int8 kernel to run
  std::optional<std::size_t> dump_image;  // int8 models: dump this test image's layers
};

struct EvalRunSummary {
  std::string dataset;
  std::string kind;  // "float" or "int8"
  std::string architecture;
  std::string kernel;            // int8: the kernel used
  model::Evaluation evaluation;  // of the test set
  nlohmann::json layers_dump;    // null unless dump_image was given

  [[nodiscard]] nlohmann::json to_json() const;
};

EvalRunSummary run_eval(const EvalRunOptions& options);

}  // namespace seatorch::eval
