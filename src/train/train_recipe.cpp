// The recipe and epoch JSON schema (train_recipe.hpp).
#include "seatorch/train/train_recipe.hpp"

#include "seatorch/core/error.hpp"

#include <string>

namespace seatorch::train {
namespace {

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

std::size_t to_size(std::uint64_t v) { return static_cast<std::size_t>(v); }

// Runs `parse` (a name parser that throws InputError for an unknown name) and reports its
// problem as the field's.
template <typename F>
auto reading(const core::JsonFields& f, const char* key, F parse) {
  try {
    return parse();
  } catch (const core::InputError& e) {
    f.fail(key, std::string("is wrong: ") + e.what());
  }
}

}  // namespace

nlohmann::json train_config_json(const TensorTrainConfig& c) {
  return {{"hidden", c.hidden},
          {"epochs", c.epochs},
          {"batch", c.batch},
          {"optimizer", optimizer_name(c.optimizer)},
          {"lr", c.lr},
          {"momentum", c.momentum},
          {"nesterov", c.nesterov},
          {"weight_decay", c.weight_decay},
          {"schedule", schedule_name(c.schedule.kind)},
          {"step_size", c.schedule.step_size},
          {"gamma", c.schedule.gamma},
          {"dropout", c.dropout},
          {"seed", c.seed},
          {"limit", c.limit},
          {"validation", c.validation},
          {"max_steps", c.max_steps},
          {"shuffle", c.shuffle}};
}

TensorTrainConfig train_config_from_json(const nlohmann::json& json, const core::JsonFields::Fail& fail) {
  const core::JsonFields f(json, "config", fail);
  TensorTrainConfig c;
  c.hidden.clear();
  for (const std::uint64_t width : f.counts("hidden")) c.hidden.push_back(to_size(width));
  c.epochs = to_size(f.count("epochs"));
  c.batch = to_size(f.count("batch"));
  const std::string optimizer = f.string("optimizer");
  c.optimizer = reading(f, "optimizer", [&] { return parse_optimizer(optimizer); });
  c.lr = f.number("lr");
  c.momentum = f.number("momentum");
  c.nesterov = f.boolean("nesterov");
  c.weight_decay = f.number("weight_decay");
  const std::string schedule = f.string("schedule");
  c.schedule.kind = reading(f, "schedule", [&] { return parse_schedule(schedule); });
  c.schedule.step_size = to_size(f.count("step_size"));
  c.schedule.gamma = f.number("gamma");
  c.dropout = f.number("dropout");
  c.seed = f.count("seed");
  c.limit = to_size(f.count("limit"));
  c.validation = f.number("validation");
  c.max_steps = to_size(f.count("max_steps"));
  c.shuffle = f.boolean("shuffle");
  return c;
}

nlohmann::json train_epoch_json(const TrainEpoch& e) {
  return {{"epoch", e.epoch},
          {"loss", e.loss},
          {"train_accuracy", e.train_accuracy},
          {"test_accuracy", optional_json(e.test_accuracy)},
          {"validation_accuracy", optional_json(e.validation_accuracy)},
          {"lr", optional_json(e.lr)},
          {"seconds", e.seconds}};
}

TrainEpoch train_epoch_from_json(const nlohmann::json& json, const core::JsonFields::Fail& fail) {
  const core::JsonFields f(json, "a history entry", fail);
  TrainEpoch e;
  e.epoch = to_size(f.count("epoch"));
  e.loss = f.number("loss");
  e.train_accuracy = f.number("train_accuracy");
  e.test_accuracy = f.optional_number("test_accuracy");
  e.validation_accuracy = f.optional_number("validation_accuracy");
  e.lr = f.optional_number("lr");
  e.seconds = f.number("seconds");
  return e;
}

}  // namespace seatorch::train
