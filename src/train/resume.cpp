// The resume file: ResumeState <-> safetensors tensors and JSON metadata, the recipe and
// epoch records as JSON, and the checks that a resume continues the same run on the same data.
#include "seatorch/train/resume.hpp"

#include "seatorch/core/crc32.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/model/engine_weights.hpp"
#include "seatorch/model/float_checkpoint.hpp"

#include <fmt/ranges.h>

#include <cmath>
#include <span>
#include <string>
#include <utility>

namespace seatorch::train {
namespace {

constexpr std::string_view kModelPrefix = "model.";
constexpr std::string_view kOptimizerPrefix = "optimizer.";

// Each recipe field's JSON key and the `seatorch train` flag that sets it, for messages.
constexpr std::pair<std::string_view, std::string_view> kConfigFlags[] = {
    {"hidden", "--hidden"},
    {"epochs", "--epochs"},
    {"batch", "--batch"},
    {"optimizer", "--opt"},
    {"lr", "--lr"},
    {"momentum", "--momentum"},
    {"nesterov", "--nesterov"},
    {"weight_decay", "--weight-decay"},
    {"schedule", "--schedule"},
    {"step_size", "--step-size"},
    {"gamma", "--gamma"},
    {"dropout", "--dropout"},
    {"seed", "--seed"},
    {"limit", "--limit"},
    {"validation", "--val-split"},
    {"max_steps", "--max-steps"},
    {"no_shuffle", "--no-shuffle"},
    {"augment", "--augment"},
    {"rotate", "--rotate"},
    {"shift", "--shift"},
    {"scale", "--scale"},
    {"shear", "--shear"},
    {"elastic_alpha", "--elastic-alpha"},
    {"elastic_sigma", "--elastic-sigma"},
};

// The recipe in the flags' terms, for comparing: --no-shuffle is `shuffle` negated.
nlohmann::json flag_values(const TensorTrainConfig& config) {
  nlohmann::json json = train_config_json(config);
  json["no_shuffle"] = !config.shuffle;
  return json;
}

[[noreturn]] void bad(std::string_view source, const std::string& problem) {
  throw core::input_error("{}: not a valid resume file: {}; start the run again from the beginning", source, problem);
}

// How a problem in the JSON metadata is reported: as the resume file's own error.
struct MetadataSource {
  explicit MetadataSource(std::string_view source) : name(fmt::format("{}: not a valid resume file", source)) {}
  [[nodiscard]] core::JsonSource json() const {
    return {name, "the metadata", "start the run again from the beginning"};
  }
  std::string name;
};

const std::string& metadata(const io::SafetensorsFile& file, std::string_view key, std::string_view source) {
  const auto it = file.metadata.find(std::string(key));
  if (it == file.metadata.end()) bad(source, fmt::format("the metadata has no '{}'", key));
  return it->second;
}

nlohmann::json metadata_json(const io::SafetensorsFile& file, std::string_view key, std::string_view source) {
  try {
    return nlohmann::json::parse(metadata(file, key, source));
  } catch (const nlohmann::json::exception&) {  // parse_error, and out_of_range for a number like 1e999
    bad(source, fmt::format("metadata '{}' is not valid JSON", key));
  }
}

io::RawTensor raw_of(const nn::NamedBuffer& b) { return io::make_tensor<float>(b.shape, b.data); }

std::size_t to_size(std::uint64_t v) { return static_cast<std::size_t>(v); }

}  // namespace

DataFingerprint fingerprint(const data::Dataset& train) {
  // The features in their stored encoding: pixel bytes, or the floats of real-valued data.
  const auto x = train.is_image() ? std::as_bytes(std::span(train.pixels)) : std::as_bytes(std::span(train.x));
  const auto y = std::as_bytes(std::span(train.y));
  std::uint32_t crc = core::crc32({reinterpret_cast<const std::uint8_t*>(x.data()), x.size()});
  crc = core::crc32({reinterpret_cast<const std::uint8_t*>(y.data()), y.size()}, crc);
  return {train.size(), train.features, crc};
}

std::filesystem::path default_resume_path(const std::filesystem::path& out) {
  return out.parent_path() / "resume.safetensors";
}

io::SafetensorsFile resume_file(const ResumeState& state) {
  io::SafetensorsFile file;
  for (const nn::NamedBuffer& b : state.model) file.tensors[std::string(kModelPrefix) + b.name] = raw_of(b);
  for (const nn::NamedBuffer& b : state.optimizer) file.tensors[std::string(kOptimizerPrefix) + b.name] = raw_of(b);
  const TrainRunOptions& o = state.options;
  const TrainPosition& p = state.position;
  nlohmann::json history = nlohmann::json::array();
  for (const TrainEpoch& e : state.history) history.push_back(train_epoch_json(e));
  file.metadata = {
      {"format", std::string(kResumeFormat)},
      {"format_version", std::string(kResumeFormatVersion)},
      {"data", nlohmann::json{{"name", o.data.name},
                              {"data_dir", o.data.data_dir.string()},
                              {"csv", o.data.csv_path.string()},
                              {"label_col", o.data.label_col}}
                   .dump()},
      {"config", train_config_json(o.tensor).dump()},
      {"position", nlohmann::json{{"epoch", p.epoch},
                                  {"step_in_epoch", p.step_in_epoch},
                                  {"loss_sum", p.loss_sum},
                                  {"samples", p.samples},
                                  {"correct", p.correct},
                                  {"seconds", p.seconds}}
                       .dump()},
      {"history", history.dump()},
      {"train_data", nlohmann::json{{"samples", state.train_data.samples},
                                    {"features", state.train_data.features},
                                    {"crc32", state.train_data.crc32}}
                         .dump()},
      {"out", o.out.string()},
  };
  return file;
}

ResumeState resume_state_from_file(const io::SafetensorsFile& file, std::string_view source) {
  const auto format = file.metadata.find("format");
  if (format == file.metadata.end() || format->second != kResumeFormat) {
    throw core::input_error("{} is not a resume file (format '{}', expected {}); pass the resume.safetensors that an "
                            "interrupted `seatorch train` wrote",
                            source, format == file.metadata.end() ? "none" : core::printable(format->second),
                            kResumeFormat);
  }
  if (metadata(file, "format_version", source) != kResumeFormatVersion) {
    bad(source, fmt::format("format version '{}' is not {}", core::printable(metadata(file, "format_version", source)),
                            kResumeFormatVersion));
  }
  const MetadataSource meta(source);
  ResumeState state;
  TrainRunOptions& o = state.options;
  const nlohmann::json data_json = metadata_json(file, "data", source);
  const core::JsonFields data(data_json, meta.json(), "data");
  o.data.name = data.string("name");
  o.data.data_dir = data.string("data_dir");
  o.data.csv_path = data.string("csv");
  o.data.label_col = data.string("label_col");
  o.engine = Engine::kTensor;
  o.tensor = train_config_from_json(metadata_json(file, "config", source), meta.json());
  o.out = metadata(file, "out", source);

  const nlohmann::json position_json = metadata_json(file, "position", source);
  const core::JsonFields position(position_json, meta.json(), "position");
  TrainPosition& p = state.position;
  p.epoch = to_size(position.unsigned_integer("epoch"));
  p.step_in_epoch = to_size(position.unsigned_integer("step_in_epoch"));
  p.loss_sum = position.number("loss_sum");
  p.samples = to_size(position.unsigned_integer("samples"));
  p.correct = to_size(position.unsigned_integer("correct"));
  p.seconds = position.number("seconds");
  if (p.correct > p.samples) bad(source, "position.correct exceeds position.samples");

  const nlohmann::json history = metadata_json(file, "history", source);
  if (!history.is_array()) bad(source, "metadata 'history' is not a JSON array");
  for (std::size_t i = 0; i < history.size(); ++i) {
    state.history.push_back(train_epoch_from_json(history[i], meta.json(), fmt::format("history[{}]", i)));
  }
  if (state.history.size() != p.epoch) {
    bad(source, fmt::format("the history has {} epochs, the position {}", state.history.size(), p.epoch));
  }

  const nlohmann::json train_json = metadata_json(file, "train_data", source);
  const core::JsonFields train(train_json, meta.json(), "train_data");
  state.train_data.samples = to_size(train.unsigned_integer("samples"));
  state.train_data.features = to_size(train.unsigned_integer("features"));
  state.train_data.crc32 = static_cast<std::uint32_t>(train.unsigned_integer("crc32", 0, 0xFFFFFFFFu));

  io::SafetensorsFile model_file;
  for (const auto& [name, tensor] : file.tensors) {
    const std::string_view n = name;
    if (n.starts_with(kModelPrefix)) {
      model_file.tensors[name.substr(kModelPrefix.size())] = tensor;
    } else if (n.starts_with(kOptimizerPrefix)) {
      state.optimizer.push_back(
          {name.substr(kOptimizerPrefix.size()), tensor.shape,
           io::tensor_values<float>(tensor, fmt::format("{}: tensor {}", source, core::printable(name)))});
    } else {
      bad(source, fmt::format("unexpected tensor '{}' (expected model.* and optimizer.*)", core::printable(name)));
    }
  }
  const model::FloatMlp model = model::float_mlp_from_checkpoint(model_file, fmt::format("{} (model.*)", source));
  const std::vector<std::size_t> sizes = model::layer_sizes(model);
  const std::vector<std::size_t> hidden(sizes.begin() + 1, sizes.end() - 1);
  if (hidden != o.tensor.hidden || sizes.front() != state.train_data.features) {
    bad(source, fmt::format("the model is {} but the recipe says hidden {} on {} features", model.architecture(),
                            fmt::join(o.tensor.hidden, ","), state.train_data.features));
  }
  state.model = model::state_dict_of(model);
  return state;
}

void save_resume_state(const std::filesystem::path& path, const ResumeState& state) {
  io::save_safetensors(path, resume_file(state));
}

ResumeState load_resume_state(const std::filesystem::path& path) {
  return resume_state_from_file(io::load_safetensors(path), path.string());
}

void check_resume_matches(const ResumeState& saved, const TrainRunOptions& requested, std::string_view source) {
  std::vector<std::string> differences;
  const auto differ = [&](std::string_view flag, const nlohmann::json& asked, const nlohmann::json& used) {
    if (asked != used) differences.push_back(fmt::format("{} {} (the run used {})", flag, asked.dump(), used.dump()));
  };
  differ("--dataset", requested.data.name, saved.options.data.name);
  differ("--label-col", requested.data.label_col, saved.options.data.label_col);
  differ("--engine", engine_name(requested.engine), engine_name(saved.options.engine));
  const nlohmann::json asked = flag_values(requested.tensor);
  const nlohmann::json used = flag_values(saved.options.tensor);
  for (const auto& [key, flag] : kConfigFlags) differ(flag, asked.at(std::string(key)), used.at(std::string(key)));
  if (!differences.empty()) {
    throw core::input_error("{}: cannot resume: {} differ from the interrupted run's; drop them (the resume file "
                            "supplies every setting) or start a new run without --resume",
                            source, fmt::join(differences, ", "));
  }
}

void check_resume_data(const ResumeState& saved, const DataFingerprint& actual, std::string_view source) {
  const DataFingerprint& f = saved.train_data;
  if (!(actual == f)) {
    throw core::input_error("{}: cannot resume: the training data differs from the interrupted run's ({} samples of {} "
                            "features, CRC-32 {:08x}; now {} of {}, {:08x}); point --data-dir/--csv at the same files",
                            source, f.samples, f.features, f.crc32, actual.samples, actual.features, actual.crc32);
  }
}

}  // namespace seatorch::train
