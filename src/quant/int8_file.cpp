// The int8 model file: layer tensors <-> Int8Layer, with every invariant checked on the
// way in and on the way out.
#include "seatorch/quant/int8_file.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/model/model_file.hpp"

#include <fmt/ranges.h>

#include <set>

namespace seatorch::quant {
namespace {

// Every layer's tensors (see the header for their dtypes and shapes).
constexpr std::string_view kFields[] = {"weight",
                                        "bias",
                                        "multiplier",
                                        "shift",
                                        "weight_scale",
                                        "input_scale",
                                        "output_scale",
                                        "input_zero_point",
                                        "weight_zero_point",
                                        "output_zero_point",
                                        "relu"};

// Reads one tensor of a known dtype and shape.
template <typename T>
std::vector<T> field(const io::SafetensorsFile& file, std::string_view source, std::size_t layer, std::string_view name,
                     const std::vector<std::size_t>& shape) {
  const std::string full = int8_field_name(layer, name);
  const auto it = file.tensors.find(full);
  if (it == file.tensors.end()) throw core::input_error("{}: the int8 model has no tensor '{}'", source, full);
  if (it->second.shape != shape) {
    throw core::input_error("{}: tensor {} has shape [{}], expected [{}]", source, full,
                            fmt::join(it->second.shape, ", "), fmt::join(shape, ", "));
  }
  return io::tensor_values<T>(it->second, fmt::format("{}: tensor {}", source, full));
}

template <typename T>
T scalar_field(const io::SafetensorsFile& file, std::string_view source, std::size_t layer, std::string_view name) {
  return field<T>(file, source, layer, name, {}).front();
}

std::vector<float> to_float(const std::vector<double>& values) { return {values.begin(), values.end()}; }

}  // namespace

io::SafetensorsFile int8_model_file(const Int8Model& model, const std::map<std::string, std::string>& metadata) {
  validate_int8_model(model, "the int8 model to save");
  io::SafetensorsFile file;
  file.metadata = metadata;
  file.metadata["format"] = std::string(model::kInt8Format);
  file.metadata["format_version"] = std::string(kInt8FormatVersion);
  file.metadata["architecture"] = model.architecture();
  file.metadata["input"] = std::string(kInt8InputEncoding);
  for (std::size_t k = 0; k < model.layers.size(); ++k) {
    const Int8Layer& l = model.layers[k];
    auto put = [&](std::string_view name, io::RawTensor tensor) {
      file.tensors[int8_field_name(k, name)] = std::move(tensor);
    };
    auto put_i32 = [&](std::string_view name, std::int32_t v) {
      put(name, io::make_tensor<std::int32_t>({}, std::span(&v, 1)));
    };
    auto put_f32 = [&](std::string_view name, double v) {
      const auto f = static_cast<float>(v);
      put(name, io::make_tensor<float>({}, std::span(&f, 1)));
    };
    put("weight", io::make_tensor<std::int8_t>({l.out, l.in}, l.weight));
    put("bias", io::make_tensor<std::int32_t>({l.out}, l.bias));
    put("multiplier", io::make_tensor<std::int32_t>({l.out}, l.multiplier));
    put("shift", io::make_tensor<std::int32_t>({l.out}, l.shift));
    put("weight_scale", io::make_tensor<float>({l.weight_scale.size()}, to_float(l.weight_scale)));
    put_f32("input_scale", l.input_scale);
    put_f32("output_scale", l.output_scale);
    put_i32("input_zero_point", l.input_zero_point);
    put_i32("weight_zero_point", l.weight_zero_point);
    put_i32("output_zero_point", l.output_zero_point);
    const std::uint8_t relu = l.relu ? 1 : 0;
    put("relu", io::make_tensor<std::uint8_t>({}, std::span(&relu, 1)));
  }
  return file;
}

Int8ModelFile int8_model_from_file(const io::SafetensorsFile& file, std::string_view source) {
  if (model::model_file_kind(file) != model::ModelFileKind::kInt8Model) {
    throw core::input_error("{} is {}, but an int8 model (format {}) was expected; quantize the float model first with "
                            "`seatorch quantize --int8`",
                            source, model::describe_model_file(file), model::kInt8Format);
  }
  const auto version = file.metadata.find("format_version");
  if (version == file.metadata.end() || version->second != kInt8FormatVersion) {
    throw core::input_error("{}: int8 format version '{}' is not supported (this seatorch reads version {}); re-run "
                            "`seatorch quantize --int8`",
                            source, version == file.metadata.end() ? "none" : core::printable(version->second),
                            kInt8FormatVersion);
  }
  std::size_t count = 0;
  while (file.tensors.count(int8_field_name(count, "weight")) > 0) ++count;
  std::set<std::string> expected;
  for (std::size_t k = 0; k < count; ++k) {
    for (std::string_view name : kFields) expected.insert(int8_field_name(k, name));
  }
  for (const auto& [name, tensor] : file.tensors) {
    if (expected.count(name) == 0) {
      throw core::input_error("{}: unexpected tensor '{}' in an int8 model of {} layers", source, core::printable(name),
                              count);
    }
  }

  Int8ModelFile result;
  result.metadata = file.metadata;
  for (std::size_t k = 0; k < count; ++k) {
    const io::RawTensor& weight = file.tensors.at(int8_field_name(k, "weight"));
    if (weight.shape.size() != 2) {
      throw core::input_error("{}: tensor {} has {} dimensions, expected 2 (out, in)", source,
                              int8_field_name(k, "weight"), weight.shape.size());
    }
    Int8Layer l;
    l.out = weight.shape[0];
    l.in = weight.shape[1];
    l.weight = field<std::int8_t>(file, source, k, "weight", {l.out, l.in});
    l.bias = field<std::int32_t>(file, source, k, "bias", {l.out});
    l.multiplier = field<std::int32_t>(file, source, k, "multiplier", {l.out});
    l.shift = field<std::int32_t>(file, source, k, "shift", {l.out});
    const auto scales_it = file.tensors.find(int8_field_name(k, "weight_scale"));
    const std::size_t scales =
        scales_it != file.tensors.end() && scales_it->second.shape == std::vector<std::size_t>{1} ? 1 : l.out;
    for (float s : field<float>(file, source, k, "weight_scale", {scales})) l.weight_scale.push_back(s);
    l.input_scale = scalar_field<float>(file, source, k, "input_scale");
    l.output_scale = scalar_field<float>(file, source, k, "output_scale");
    l.input_zero_point = scalar_field<std::int32_t>(file, source, k, "input_zero_point");
    l.weight_zero_point = scalar_field<std::int32_t>(file, source, k, "weight_zero_point");
    l.output_zero_point = scalar_field<std::int32_t>(file, source, k, "output_zero_point");
    const std::uint8_t relu = scalar_field<std::uint8_t>(file, source, k, "relu");
    if (relu > 1) throw core::input_error("{}: {} = {} is outside [0, 1]", source, int8_field_name(k, "relu"), relu);
    l.relu = relu == 1;
    result.model.layers.push_back(std::move(l));
  }
  validate_int8_model(result.model, source);
  return result;
}

void save_int8_model(const std::filesystem::path& path, const Int8Model& model,
                     const std::map<std::string, std::string>& metadata) {
  io::save_safetensors(path, int8_model_file(model, metadata));
}

Int8ModelFile load_int8_model(const std::filesystem::path& path) {
  return int8_model_from_file(io::load_safetensors(path), path.string());
}

}  // namespace seatorch::quant
