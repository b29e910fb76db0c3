// One `seatorch predict` run as a library call: read the user's own pictures
// (data/image_file.hpp), prepare each the way MNIST prepared its digits
// (data/digit_image.hpp), and classify it with a float checkpoint (softmax probabilities)
// or an int8 model (its int8 logits from the integer reference), and, on request, on the
// Mini NPU: the prepared bytes go through the Verilated RTL over its UART exactly as
// `seatorch sim` sends them (npu::NpuSession, npu::read_npu_hex), and its answer is
// compared with the C++ integer reference that the .hex image encodes. The .hex must hold the
// model given (its architecture, and for an int8 model its integers): else the NPU would
// answer for another model beside this one's answer.
// Pictures are read and checked before the model is loaded, so a bad picture is reported
// first and fast. Deliberately not here: printing and argument parsing.
#pragma once

#include "seatorch/image/digit_image.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace seatorch::predict {

struct PredictOptions {
  std::vector<std::filesystem::path> images;                       // at least one
  std::filesystem::path model = "seatorch-out/model.safetensors";  // float checkpoint or int8 model
  bool npu = false;                                                // also run the Mini NPU
  std::filesystem::path hex = "seatorch-out/model.hex";
  std::filesystem::path save_input;  // the prepared input of the one image, as PGM; empty: none
};

struct NpuPrediction {
  std::size_t predicted = 0;
  std::vector<std::int8_t> logits;            // (outputs) from the NPU
  std::vector<std::int8_t> reference_logits;  // (outputs) from the integer model the .hex encodes
  std::uint32_t npu_cycles = 0;               // first layer start -> last logit

  [[nodiscard]] bool matches_reference() const { return logits == reference_logits; }
};

struct ImagePrediction {
  std::filesystem::path image;
  std::size_t width = 0;  // of the picture
  std::size_t height = 0;
  image::DigitInput input;  // what the model saw, and how it was made
  std::size_t predicted = 0;
  std::vector<double> probabilities;     // float model: softmax of its logits (outputs)
  std::vector<std::int8_t> int8_logits;  // int8 model: the reference's logits (outputs)
  std::optional<NpuPrediction> npu;
};

struct PredictSummary {
  std::string model;
  std::string kind;  // "float" or "int8"
  std::string architecture;
  std::string dataset;  // recorded in the model; may be empty
  std::string hex;      // with the NPU
  std::vector<ImagePrediction> images;

  // True unless an NPU answer differs from the integer reference (a bug in seatorch).
  [[nodiscard]] bool npu_agrees() const;
  [[nodiscard]] nlohmann::json to_json() const;
};

// Softmax in double precision (max subtracted first): probabilities that sum to 1.
std::vector<double> softmax(const std::vector<float>& logits);

PredictSummary run_predict(const PredictOptions& options);

}  // namespace seatorch::predict
