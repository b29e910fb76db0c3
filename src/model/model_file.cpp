// Model-file kinds: the metadata rules of model/model_file.hpp.
#include "seatorch/model/model_file.hpp"

#include "seatorch/core/error.hpp"

namespace seatorch::model {

ModelFileKind model_file_kind(const io::SafetensorsFile& file) {
  const auto format = file.metadata.find("format");
  const bool int8 = format != file.metadata.end() && format->second == kInt8Format;
  return int8 ? ModelFileKind::kInt8Model : ModelFileKind::kFloatCheckpoint;
}

std::string_view model_kind_name(ModelFileKind kind) { return kind == ModelFileKind::kInt8Model ? "int8" : "float"; }

std::string describe_model_file(const io::SafetensorsFile& file) {
  const auto format = file.metadata.find("format");
  if (model_file_kind(file) == ModelFileKind::kInt8Model) return fmt::format("an int8 model (format {})", kInt8Format);
  if (file.tensors.count("0.weight") > 0) {
    return fmt::format("a float checkpoint (format '{}', tensors 0.weight, 0.bias, ...)",
                       format == file.metadata.end() ? "none" : core::printable(format->second));
  }
  if (format != file.metadata.end())
    return fmt::format("a safetensors file of format '{}'", core::printable(format->second));
  return "a safetensors file without seatorch metadata";
}

std::optional<std::string> recorded_dataset(const io::Metadata& metadata) {
  const auto it = metadata.find("dataset");
  if (it == metadata.end()) return std::nullopt;
  return it->second;
}

std::string dataset_for(const io::Metadata& metadata, std::string_view source, std::string_view given) {
  if (!given.empty()) return std::string(given);
  if (auto recorded = recorded_dataset(metadata)) return *std::move(recorded);
  throw core::option_error("data set", "{} does not record its data set: name the data set to use", source);
}

}  // namespace seatorch::model
