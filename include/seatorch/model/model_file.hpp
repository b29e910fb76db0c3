// Which kind of model file a safetensors file is, and which data set it records.
//
// seatorch writes two kinds of model file: the float checkpoint (model/float_checkpoint.hpp,
// tensors "0.weight", "0.bias", ...) and the int8 model (quant/int8_file.hpp, metadata
// "format": "seatorch-int8"). Every stage that accepts either (eval, predict, the int8
// benchmark) and every reader that must refuse the other kind with a useful message asks
// here, so the rule is written once. Deliberately not here: reading the tensors of either
// kind (their own files do that).
#pragma once

#include "seatorch/io/safetensors.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace seatorch::model {

// The int8 model file's "format" metadata value (quant/int8_file.hpp writes it).
inline constexpr std::string_view kInt8Format = "seatorch-int8";

enum class ModelFileKind : std::uint8_t {
  kFloatCheckpoint,  // anything without the int8 format tag; its reader checks the rest
  kInt8Model,        // metadata "format" = kInt8Format
};

[[nodiscard]] ModelFileKind model_file_kind(const io::SafetensorsFile& file);

// "float" or "int8": the name reports and --json output use.
[[nodiscard]] std::string_view model_kind_name(ModelFileKind kind);

// For a message that refuses the file: "a float checkpoint (format 'pt', tensors 0.weight, ...)",
// "a safetensors file of format 'x'", or "a safetensors file without seatorch metadata".
[[nodiscard]] std::string describe_model_file(const io::SafetensorsFile& file);

// The data set the file was trained or quantized on (its "dataset" metadata), if recorded.
[[nodiscard]] std::optional<std::string> recorded_dataset(const io::Metadata& metadata);

// `given` when not empty, else the recorded data set; throws OptionError ("data set") when
// neither names one. `source` names the file in the message.
[[nodiscard]] std::string dataset_for(const io::Metadata& metadata, std::string_view source, std::string_view given);

}  // namespace seatorch::model
