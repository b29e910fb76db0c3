// The int8 model file: an Int8Model as safetensors, readable by any safetensors reader
// (PyTorch included) and by the NPU exporter. For layer k (0, 1, ...):
//   layers.k.weight             I8  (out, in)   q_w
//   layers.k.bias               I32 (out)       at scale input_scale * weight_scale[j]
//   layers.k.multiplier         I32 (out)       M_j in [2^30, 2^31)
//   layers.k.shift              I32 (out)       right shift in [0, 31]
//   layers.k.weight_scale       F32 (1) per-tensor or (out) per-channel
//   layers.k.input_scale        F32 []          s_x
//   layers.k.output_scale       F32 []          s_y
//   layers.k.input_zero_point   I32 []          z_x (layer 0: -128, the pixel encoding)
//   layers.k.weight_zero_point  I32 []          z_w (0 when per-channel)
//   layers.k.output_zero_point  I32 []          z_y
//   layers.k.relu               U8  []          1 when the output is clamped at z_y
// Metadata: "format": "seatorch-int8" (model/model_file.hpp tells the kinds apart), "format_version": "1", "architecture", "input"
// (the pixel encoding), plus the quantizer's keys (granularity, calibration, ...) and the
// caller's (dataset, source model, ...). The arithmetic is in quant/int8_model.hpp.
// Scales are float32 in the file; the quantizer rounds them to float32 before deriving the
// integer parameters, so a saved model loads back identical.
// Both directions check the model with validate_int8_model (quant/int8_model.hpp).
// Deliberately not here: how the numbers are chosen (quant/quantizer.hpp).
#pragma once

#include "seatorch/io/safetensors.hpp"
#include "seatorch/quant/int8_model.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace seatorch::quant {

inline constexpr std::string_view kInt8FormatVersion = "1";
inline constexpr std::string_view kInt8InputEncoding =
    "u8 pixel p, first layer sees p - 128 (scale 1/255, zero-point -128)";

struct Int8ModelFile {
  Int8Model model;
  std::map<std::string, std::string> metadata;
};

// `metadata` is added to the keys above (which it may not override).
io::SafetensorsFile int8_model_file(const Int8Model& model, const std::map<std::string, std::string>& metadata = {});
Int8ModelFile int8_model_from_file(const io::SafetensorsFile& file, std::string_view source);

void save_int8_model(const std::filesystem::path& path, const Int8Model& model,
                     const std::map<std::string, std::string>& metadata = {});
Int8ModelFile load_int8_model(const std::filesystem::path& path);

}  // namespace seatorch::quant
