// One `seatorch quantize --int8` run as a library call: read a float checkpoint, calibrate
// on the first N training images of its data set, quantize, compare float and int8 on the
// whole test set, and write the int8 model file (atomically, only after everything
// succeeded). Deliberately not here: the arithmetic (quantizer.hpp, int8_model.hpp) and
// terminal output.
#pragma once

#include "seatorch/data/registry.hpp"
#include "seatorch/quant/quantizer.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <string>

namespace seatorch::quant {

struct QuantizeRunOptions {
  std::filesystem::path model = "seatorch-out/model.safetensors";
  std::filesystem::path out = "seatorch-out/model.int8.safetensors";
  DataOptions data;            // data.name empty: the data set recorded in the checkpoint
  QuantizeOptions quantize;
  std::size_t calibration_images = 500;
};

struct QuantizeRunSummary {
  std::string dataset;
  std::string architecture;
  QuantizeOptions quantize;
  std::size_t calibration_images = 0;
  std::size_t test_images = 0;
  double float_accuracy = 0.0;
  double int8_accuracy = 0.0;
  double delta_pp = 0.0;       // (int8 - float) in percentage points
  std::string kernel;          // the int8 kernel that evaluated the test set
  std::vector<LayerReport> layers;
  std::filesystem::path written;

  [[nodiscard]] nlohmann::json to_json() const;
};

QuantizeRunSummary run_quantize(const QuantizeRunOptions& options);

// The data set a model file was trained on (its "dataset" metadata), or "" when absent.
std::string recorded_dataset(const std::filesystem::path& model_file);

}  // namespace seatorch::quant
