// One `seatorch quantize --int8` run as a library call: read a float checkpoint, optionally
// fine-tune it quantization-aware (qat.hpp), calibrate on the first N training images of its
// data set, quantize, compare the int8 model with the checkpoint's float model on the whole
// test set, and write the int8 model file (atomically, only after everything succeeded). Deliberately not here: the arithmetic (quantizer.hpp, int8_model.hpp) and
// terminal output.
#pragma once

#include "seatorch/data/registry.hpp"
#include "seatorch/quant/qat.hpp"
#include "seatorch/quant/quantizer.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace seatorch::quant {

struct QuantizeRunOptions {
  std::filesystem::path model = "seatorch-out/model.safetensors";
  std::filesystem::path out = "seatorch-out/model.int8.safetensors";
  data::DataOptions data;  // data.name empty: the data set recorded in the checkpoint
  QuantizeOptions quantize;
  std::size_t calibration_images = 500;
  QatOptions qat;  // qat.epochs 0: plain post-training quantization
};

struct QuantizeRunSummary {
  std::string dataset;
  std::string architecture;
  QuantizeOptions quantize;
  std::size_t calibration_images = 0;
  std::size_t test_images = 0;
  double float_accuracy = 0.0;  // of the checkpoint's float model, with or without QAT
  double int8_accuracy = 0.0;
  double delta_pp = 0.0;       // (int8 - float) in percentage points
  std::size_t qat_epochs = 0;  // 0: QAT did not run
  double qat_lr = 0.0;
  double qat_seconds = 0.0;
  std::optional<double> qat_float_accuracy;  // of the fine-tuned float weights, when QAT ran
  std::string kernel;                        // the int8 kernel that evaluated the test set
  std::vector<LayerReport> layers;           // errors versus the float weights quantized (fine-tuned ones after QAT)
  std::filesystem::path written;

  [[nodiscard]] nlohmann::json to_json() const;
};

QuantizeRunSummary run_quantize(const QuantizeRunOptions& options);

}  // namespace seatorch::quant
