// write_train_outputs(): checkpoint, metrics.json and the three plots of a finished run.
#include "seatorch/train/train_outputs.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/io/atomic_file.hpp"
#include "seatorch/model/float_checkpoint.hpp"
#include "seatorch/report/svg_plot.hpp"
#include "seatorch/train/train_recipe.hpp"

#include <fmt/format.h>

#include <limits>
#include <utility>

namespace seatorch::train {
namespace {

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

nlohmann::json config_json(const TrainRunOptions& options) {
  nlohmann::json json = train_config_json(options.tensor);
  json["engine"] = engine_name(options.engine);
  json["init"] = options.init ? options.init->string() : std::string();
  json["resume"] = options.resume ? options.resume->string() : std::string();
  return json;
}

std::vector<double> column(const std::vector<TrainEpoch>& history, std::optional<double> TrainEpoch::*field) {
  std::vector<double> values;
  for (const TrainEpoch& e : history) values.push_back((e.*field).value_or(kNoValue));
  return values;
}

}  // namespace

void write_train_outputs(const TrainRunOptions& options, TrainRunSummary& summary) {
  const TrainResult& r = summary.training;
  const std::filesystem::path dir = options.out.has_parent_path() ? options.out.parent_path() : ".";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw core::input_error("cannot create output directory {}: {}", dir.string(), ec.message());

  model::save_float_checkpoint(options.out, summary.model,
                               {{"dataset", summary.dataset},
                                {"engine", std::string(engine_name(options.engine))},
                                {"seed", std::to_string(options.tensor.seed)},
                                {"epochs", std::to_string(r.history.size())},
                                {"test_accuracy", fmt::format("{:.4f}", r.test.accuracy())}});
  summary.written.push_back(options.out);

  nlohmann::json metrics = summary.to_json();
  metrics["config"] = config_json(options);
  metrics["history"] = nlohmann::json::array();
  for (const TrainEpoch& e : r.history) metrics["history"].push_back(train_epoch_json(e));
  metrics["per_class_accuracy"] = r.test.per_class_accuracy();
  metrics["confusion"] = r.test.confusion();
  const std::filesystem::path metrics_path = dir / "metrics.json";
  io::write_file_atomic(metrics_path, metrics.dump(2) + "\n");
  summary.written.push_back(metrics_path);

  std::vector<double> loss;
  std::vector<double> train_acc;
  for (const TrainEpoch& e : r.history) {
    loss.push_back(e.loss);
    train_acc.push_back(e.train_accuracy);
  }
  const std::string title =
      fmt::format("{} {} on {}", summary.model.architecture(), engine_name(options.engine), summary.dataset);
  std::vector<report::Series> acc_series{{"train (running)", train_acc, {}}};
  if (options.tensor.evaluate_each_epoch && options.engine == Engine::kTensor) {
    acc_series.push_back({"test", column(r.history, &TrainEpoch::test_accuracy), {}});
  }
  if (r.validation_accuracy) {
    acc_series.push_back({"validation", column(r.history, &TrainEpoch::validation_accuracy), {}});
  }
  const std::vector<std::pair<std::string, std::string>> plots{
      {"loss.svg",
       report::line_chart_svg({"Training loss: " + title, "epoch", "cross-entropy", {{"train", loss, {}}}})},
      {"accuracy.svg", report::line_chart_svg({"Accuracy: " + title, "epoch", "accuracy", acc_series})},
      {"confusion.svg",
       report::confusion_matrix_svg(r.test.confusion(), r.test.classes(), "Test-set confusion: " + title)}};
  for (const auto& [name, svg] : plots) {
    io::write_file_atomic(dir / name, svg);
    summary.written.push_back(dir / name);
  }
}

}  // namespace seatorch::train
