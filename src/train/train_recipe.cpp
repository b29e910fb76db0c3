// The recipe and epoch JSON schema (train_recipe.hpp).
#include "seatorch/train/train_recipe.hpp"

#include "seatorch/core/error.hpp"

#include <fmt/format.h>

#include <string>
#include <utility>

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
    f.fail(key, fmt::format("a name this seatorch knows ({})", e.what()), f.get(key));
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
          {"shuffle", c.shuffle},
          {"augment", augment::augment_list(c.augment)},
          {"rotate", c.augment.ranges.rotate_degrees},
          {"shift", c.augment.ranges.shift_pixels},
          {"scale", c.augment.ranges.scale},
          {"shear", c.augment.ranges.shear_degrees},
          {"elastic_alpha", c.augment.elastic_params.alpha},
          {"elastic_sigma", c.augment.elastic_params.sigma}};
}

TensorTrainConfig train_config_from_json(const nlohmann::json& json, const core::JsonSource& source) {
  const core::JsonFields f(json, source, "config");
  TensorTrainConfig c;
  c.hidden.clear();
  for (const std::uint64_t width : f.unsigned_integers("hidden")) c.hidden.push_back(to_size(width));
  c.epochs = to_size(f.unsigned_integer("epochs"));
  c.batch = to_size(f.unsigned_integer("batch"));
  const std::string optimizer = f.string("optimizer");
  c.optimizer = reading(f, "optimizer", [&] { return parse_optimizer(optimizer); });
  c.lr = f.number("lr");
  c.momentum = f.number("momentum");
  c.nesterov = f.boolean("nesterov");
  c.weight_decay = f.number("weight_decay");
  const std::string schedule = f.string("schedule");
  c.schedule.kind = reading(f, "schedule", [&] { return parse_schedule(schedule); });
  c.schedule.step_size = to_size(f.unsigned_integer("step_size"));
  c.schedule.gamma = f.number("gamma");
  c.dropout = f.number("dropout");
  c.seed = f.unsigned_integer("seed");
  c.limit = to_size(f.unsigned_integer("limit"));
  c.validation = f.number("validation");
  c.max_steps = to_size(f.unsigned_integer("max_steps"));
  c.shuffle = f.boolean("shuffle");
  if (f.has("augment")) {  // absent from the files of runs before augmentation: none
    const std::string list = f.string("augment");
    reading(f, "augment", [&] {
      augment::parse_augment_list(list, c.augment);
      return 0;
    });
    c.augment.ranges.rotate_degrees = f.number("rotate");
    c.augment.ranges.shift_pixels = f.number("shift");
    c.augment.ranges.scale = f.number("scale");
    c.augment.ranges.shear_degrees = f.number("shear");
    c.augment.elastic_params.alpha = f.number("elastic_alpha");
    c.augment.elastic_params.sigma = f.number("elastic_sigma");
  }
  return c;
}

nlohmann::json train_epoch_json(const TrainEpoch& e) {
  return {{"epoch", e.epoch},
          {"loss", e.loss},
          {"train_accuracy", e.train_accuracy},
          {"test_accuracy", optional_json(e.test_accuracy)},
          {"validation_accuracy", optional_json(e.validation_accuracy)},
          {"lr", optional_json(e.lr)},
          {"seconds", e.seconds},
          {"eval_seconds", e.eval_seconds}};
}

TrainEpoch train_epoch_from_json(const nlohmann::json& json, const core::JsonSource& source, std::string where) {
  const core::JsonFields f(json, source, std::move(where));
  TrainEpoch e;
  e.epoch = to_size(f.unsigned_integer("epoch"));
  e.loss = f.number("loss");
  e.train_accuracy = f.number("train_accuracy");
  e.test_accuracy = f.nullable_number("test_accuracy");
  e.validation_accuracy = f.nullable_number("validation_accuracy");
  e.lr = f.nullable_number("lr");
  e.seconds = f.number("seconds");
  e.eval_seconds = f.has("eval_seconds") ? f.number("eval_seconds") : 0.0;  // absent before 2026-12
  return e;
}

}  // namespace seatorch::train
