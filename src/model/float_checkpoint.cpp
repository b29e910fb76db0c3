// Float checkpoint mapping: nn.Sequential state-dict names <-> FloatMlp layers.
#include "seatorch/model/float_checkpoint.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/model/model_file.hpp"

#include <charconv>
#include <optional>

namespace seatorch::model {
namespace {

// "12.weight" -> (12, "weight"); nullopt for any other form.
std::optional<std::pair<std::size_t, std::string>> split_name(const std::string& name) {
  const auto dot = name.find('.');
  if (dot == std::string::npos || dot == 0) return std::nullopt;
  std::size_t index = 0;
  const char* begin = name.data();
  const auto [end, ec] = std::from_chars(begin, begin + dot, index);
  if (ec != std::errc() || end != begin + dot || (dot > 1 && name[0] == '0')) return std::nullopt;
  std::string parameter = name.substr(dot + 1);
  if (parameter != "weight" && parameter != "bias") return std::nullopt;
  return std::pair{index, parameter};
}

const io::RawTensor& find_tensor(const io::SafetensorsFile& file, std::string_view source, const std::string& name) {
  const auto it = file.tensors.find(name);
  if (it == file.tensors.end()) {
    throw core::input_error("{}: the checkpoint has no tensor '{}'; a checkpoint holds an nn.Sequential of Linear/ReLU "
                            "layers (0.weight, 0.bias, 2.weight, ...)",
                            source, name);
  }
  return it->second;
}

}  // namespace

io::SafetensorsFile float_checkpoint(const FloatMlp& model, const std::map<std::string, std::string>& metadata) {
  validate_float_mlp(model, "the model to save");
  for (std::size_t k = 0; k < model.layers.size(); ++k) {
    if (model.layers[k].relu != (k + 1 < model.layers.size())) {
      throw core::input_error(
          "cannot save the model as an nn.Sequential checkpoint: every layer but the last must have "
          "a ReLU and the last none (layer {} differs)",
          k);
    }
  }
  io::SafetensorsFile file;
  file.metadata = metadata;
  file.metadata["format"] = "pt";
  file.metadata["architecture"] = model.architecture();
  file.metadata["activation"] = "relu";
  for (std::size_t k = 0; k < model.layers.size(); ++k) {
    const DenseLayer& layer = model.layers[k];
    file.tensors[nn::sequential_parameter_name(k, "weight")] =
        io::make_tensor<float>({layer.out, layer.in}, layer.weight);
    file.tensors[nn::sequential_parameter_name(k, "bias")] = io::make_tensor<float>({layer.out}, layer.bias);
  }
  return file;
}

FloatMlp float_mlp_from_checkpoint(const io::SafetensorsFile& file, std::string_view source) {
  if (model_file_kind(file) == ModelFileKind::kInt8Model) {
    throw core::input_error(
        "{} is {}, but a float checkpoint (F32 tensors 0.weight, 0.bias, ...) was expected; pass the "
        "float model written by `seatorch train` (seatorch-out/model.safetensors)",
        source, describe_model_file(file));
  }
  const auto activation = file.metadata.find("activation");
  if (activation != file.metadata.end() && activation->second != "relu") {
    throw core::input_error("{}: the model uses activation '{}'; quantization supports ReLU MLPs only "
                            "(like those `seatorch train` writes)",
                            source, core::printable(activation->second));
  }
  std::size_t count = 0;  // Linear layers at positions 0, 2, 4, ...
  for (const auto& [name, tensor] : file.tensors) {
    const auto parsed = split_name(name);
    if (!parsed || parsed->first % 2 != 0) {
      throw core::input_error(
          "{}: unexpected tensor '{}'; a checkpoint holds an nn.Sequential(Linear, ReLU, Linear, ...): "
          "0.weight, 0.bias, 2.weight, 2.bias, ...",
          source, core::printable(name));
    }
    count = std::max(count, parsed->first / 2 + 1);
  }
  if (count == 0) throw core::input_error("{}: the checkpoint has no tensors; expected 0.weight, 0.bias, ...", source);

  FloatMlp model;
  for (std::size_t k = 0; k < count; ++k) {
    const std::string weight_name = nn::sequential_parameter_name(k, "weight");
    const std::string bias_name = nn::sequential_parameter_name(k, "bias");
    const io::RawTensor& weight = find_tensor(file, source, weight_name);
    const io::RawTensor& bias = find_tensor(file, source, bias_name);
    if (weight.shape.size() != 2) {
      throw core::input_error("{}: tensor {} has {} dimensions, expected 2 (out, in)", source, weight_name,
                              weight.shape.size());
    }
    if (bias.shape.size() != 1 || bias.shape[0] != weight.shape[0]) {
      throw core::input_error("{}: tensor {} has shape [{}], expected [{}] to match {}", source, bias_name,
                              fmt::join(bias.shape, ", "), weight.shape[0], weight_name);
    }
    DenseLayer layer;
    layer.out = weight.shape[0];
    layer.in = weight.shape[1];
    layer.weight = io::tensor_values<float>(weight, fmt::format("{}: tensor {}", source, weight_name));
    layer.bias = io::tensor_values<float>(bias, fmt::format("{}: tensor {}", source, bias_name));
    layer.relu = k + 1 < count;
    model.layers.push_back(std::move(layer));
  }
  validate_float_mlp(model, source);
  return model;
}

void save_float_checkpoint(const std::filesystem::path& path, const FloatMlp& model,
                           const std::map<std::string, std::string>& metadata) {
  io::save_safetensors(path, float_checkpoint(model, metadata));
}

FloatMlp load_float_checkpoint(const std::filesystem::path& path) {
  return float_mlp_from_checkpoint(io::load_safetensors(path), path.string());
}

}  // namespace seatorch::model
