// run_training(): data -> engine -> final evaluation -> checkpoint, metrics and plots.
#include "seatorch/train/train_run.hpp"

#include "seatorch/data/split.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/io/atomic_file.hpp"
#include "seatorch/kernels/matmul.hpp"
#include "seatorch/quant/evaluate.hpp"
#include "seatorch/model/float_checkpoint.hpp"
#include "seatorch/report/svg_plot.hpp"
#include "seatorch/model/engine_weights.hpp"
#include "seatorch/train/resume.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <limits>
#include <utility>

namespace seatorch::train {
namespace {

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// What the engines hand back, in one shape.
struct Trained {
  model::FloatMlp model;
  std::size_t steps = 0;
  std::size_t train_size = 0;
  double final_loss = 0.0;
  double train_accuracy = 0.0;
  std::optional<double> validation_accuracy;
  double seconds = 0.0;
  double us_per_sample = 0.0;
  std::vector<TrainEpoch> history;
  // Tensor engine, stopped by should_stop: where, and the state to resume from.
  bool stopped = false;
  TrainPosition position;
  nn::StateDict optimizer_state;
};

TrainEpoch train_epoch_of(const TensorEpochReport& r) {
  return {r.epoch, r.loss, r.train_accuracy, r.test_accuracy, r.validation_accuracy, r.lr, r.seconds};
}

Trained train_with_tensor_engine(const data::DataSplit& data, TensorTrainConfig config,
                                 const std::optional<model::FloatMlp>& init, const std::optional<ResumeState>& resume,
                                 const TrainRunCallbacks& callbacks) {
  if (init) config.initial_parameters = model::state_dict_of(*init);
  Trained trained;
  if (resume) {
    config.initial_parameters = resume->model;
    config.initial_optimizer_state = resume->optimizer;
    config.start = resume->position;
    trained.history = resume->history;
  }
  TensorTrainCallbacks engine_callbacks;
  engine_callbacks.on_step = callbacks.on_step;
  engine_callbacks.should_stop = callbacks.should_stop;
  engine_callbacks.on_epoch = [&](const TensorEpochReport& r) {
    trained.history.push_back(train_epoch_of(r));
    if (callbacks.on_epoch) callbacks.on_epoch(trained.history.back());
  };
  TensorTrainOutput out = train_tensor(data, config, engine_callbacks);
  trained.stopped = out.result.stopped;
  trained.position = out.result.position;
  trained.optimizer_state = std::move(out.optimizer_state);
  trained.model = model::float_mlp_of(out.model);
  trained.steps = out.result.steps;
  trained.train_size = out.result.train_size;
  trained.final_loss = out.result.final_loss;
  trained.train_accuracy = out.result.train_accuracy;
  trained.validation_accuracy = out.result.validation_accuracy;
  trained.seconds = out.result.seconds;
  trained.us_per_sample = out.result.us_per_sample;
  return trained;
}

Trained train_with_scalar_engine(data::DataSplit data, const TensorTrainConfig& recipe,
                                 const std::optional<model::FloatMlp>& init,
                                 const TrainRunCallbacks& callbacks) {
  if (recipe.optimizer != OptimizerKind::kSgd || recipe.momentum != 0.0 || recipe.weight_decay != 0.0 ||
      recipe.dropout != 0.0 || recipe.validation != 0.0 || recipe.max_steps != 0) {
    throw core::input_error("the scalar engine trains with plain SGD only: drop --opt/--momentum/--weight-decay/"
                      "--dropout/--val-split/--max-steps, or use --engine tensor");
  }
  if (recipe.limit > 0) data.train = data::take_first(std::move(data.train), recipe.limit);
  ScalarTrainConfig config;
  config.hidden = recipe.hidden;
  config.activation = scalar::Activation::kRelu;  // the MLP family checkpoints describe
  config.epochs = recipe.epochs;
  config.batch = recipe.batch;
  config.lr = recipe.lr;
  config.seed = recipe.seed;
  config.shuffle = recipe.shuffle;
  if (init) config.initial_parameters = model::scalar_parameters_of(*init);

  // The test set is evaluated once, on the final weights, by the float reference; the
  // scalar graph would take seconds per thousand images for the same numbers.
  const data::Dataset test = std::exchange(data.test, data::Dataset{data.train.features, data.train.classes, {}, {}});
  Trained trained;
  const ScalarTrainResult result = train_scalar(data, config, [&](const EpochReport& r) {
    trained.history.push_back({r.epoch, r.loss, r.train_accuracy, std::nullopt, std::nullopt, config.lr, r.seconds});
    if (callbacks.on_epoch) callbacks.on_epoch(trained.history.back());
  });
  data.test = test;
  std::vector<std::size_t> sizes{data.train.features};
  sizes.insert(sizes.end(), config.hidden.begin(), config.hidden.end());
  sizes.push_back(data.train.classes);
  trained.model = model::float_mlp_of_scalar(sizes, result.weights);
  trained.steps = result.steps;
  trained.train_size = data.train.size();
  trained.final_loss = result.final_loss;
  trained.train_accuracy = result.train_accuracy;
  trained.seconds = result.seconds;
  const double samples = static_cast<double>(data.train.size() * config.epochs);
  trained.us_per_sample = samples > 0 ? result.seconds / samples * 1e6 : 0.0;
  return trained;
}

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json config_json(const TrainRunOptions& options, const TensorTrainConfig& c) {
  nlohmann::json json = train_config_json(c);
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

void write_outputs(const TrainRunOptions& options, const TensorTrainConfig& config, TrainRunSummary& summary,
                   const model::FloatMlp& model) {
  const std::filesystem::path dir = options.out.has_parent_path() ? options.out.parent_path() : ".";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw core::input_error("cannot create output directory {}: {}", dir.string(), ec.message());

  model::save_float_checkpoint(options.out, model,
                               {{"dataset", summary.dataset},
                                {"engine", std::string(engine_name(options.engine))},
                                {"seed", std::to_string(config.seed)},
                                {"epochs", std::to_string(summary.epochs)},
                                {"test_accuracy", fmt::format("{:.4f}", summary.test_accuracy)}});
  summary.written.push_back(options.out);

  nlohmann::json metrics = summary.to_json();
  metrics["config"] = config_json(options, config);
  metrics["history"] = nlohmann::json::array();
  for (const TrainEpoch& e : summary.history) metrics["history"].push_back(train_epoch_json(e));
  metrics["per_class_accuracy"] = summary.per_class_accuracy;
  metrics["confusion"] = summary.confusion;
  const std::filesystem::path metrics_path = dir / "metrics.json";
  io::write_file_atomic(metrics_path, metrics.dump(2) + "\n");
  summary.written.push_back(metrics_path);

  std::vector<double> loss;
  std::vector<double> train_acc;
  for (const TrainEpoch& e : summary.history) {
    loss.push_back(e.loss);
    train_acc.push_back(e.train_accuracy);
  }
  const std::string title = fmt::format("{} {} on {}", summary.architecture, engine_name(options.engine), summary.dataset);
  std::vector<report::Series> acc_series{{"train (running)", train_acc, {}}};
  if (config.evaluate_each_epoch && options.engine == Engine::kTensor) {
    acc_series.push_back({"test", column(summary.history, &TrainEpoch::test_accuracy), {}});
  }
  if (summary.validation_accuracy) {
    acc_series.push_back({"validation", column(summary.history, &TrainEpoch::validation_accuracy), {}});
  }
  const std::vector<std::pair<std::string, std::string>> plots{
      {"loss.svg", report::line_chart_svg({"Training loss: " + title, "epoch", "cross-entropy", {{"train", loss, {}}}})},
      {"accuracy.svg", report::line_chart_svg({"Accuracy: " + title, "epoch", "accuracy", acc_series})},
      {"confusion.svg", report::confusion_matrix_svg(summary.confusion, summary.per_class_accuracy.size(),
                                                     "Test-set confusion: " + title)}};
  for (const auto& [name, svg] : plots) {
    io::write_file_atomic(dir / name, svg);
    summary.written.push_back(dir / name);
  }
}

// Loads and checks the resume file, or nothing when the run is not a resume.
std::optional<ResumeState> load_resume(const TrainRunOptions& options, const data::DataSplit& data) {
  if (!options.resume) return std::nullopt;
  const std::string source = options.resume->string();
  if (options.init) {
    throw core::input_error("--init and --resume exclude each other: {} holds the interrupted run's weights", source);
  }
  ResumeState state = load_resume_state(*options.resume);
  check_resume_matches(state, options, source);
  check_resume_data(state, fingerprint(data.train), source);
  return state;
}

// The interrupted run's resume file; returns its path.
std::filesystem::path write_resume_file(const TrainRunOptions& options, const data::DataSplit& data,
                                        const TensorTrainConfig& config, const Trained& trained) {
  ResumeState state;
  state.options = options;
  state.options.tensor = config;
  state.options.init.reset();
  state.options.resume.reset();
  state.position = trained.position;
  state.history = trained.history;
  state.model = model::state_dict_of(trained.model);
  state.optimizer = trained.optimizer_state;
  state.train_data = fingerprint(data.train);
  const std::filesystem::path path = default_resume_path(options.out);
  save_resume_state(path, state);
  return path;
}

// A finished run's resume file is stale: continuing it would redo finished work.
void remove_stale_resume_file(const std::filesystem::path& out) {
  const std::filesystem::path path = default_resume_path(out);
  std::error_code ec;
  if (std::filesystem::remove(path, ec)) spdlog::info("removed {}: the run it would resume is complete", path.string());
}

}  // namespace

Engine parse_engine(std::string_view name) {
  if (name == "tensor") return Engine::kTensor;
  if (name == "scalar") return Engine::kScalar;
  throw core::input_error("unknown engine '{}': use tensor or scalar", name);
}

std::string_view engine_name(Engine engine) { return engine == Engine::kTensor ? "tensor" : "scalar"; }

TensorTrainConfig default_train_config(std::string_view dataset, Engine engine) {
  TensorTrainConfig config = default_tensor_config(dataset);
  if (engine == Engine::kScalar) {
    const ScalarTrainConfig scalar = default_scalar_config(dataset);
    config.hidden = scalar.hidden;
    config.epochs = scalar.epochs;
    config.batch = scalar.batch;
    config.lr = scalar.lr;
    config.optimizer = OptimizerKind::kSgd;
    config.momentum = 0.0;
    config.weight_decay = 0.0;
    config.schedule = {ScheduleKind::kConstant};
  }
  return config;
}

nlohmann::json TrainRunSummary::to_json() const {
  return {{"dataset", dataset},
          {"engine", engine_name(engine)},
          {"architecture", architecture},
          {"kernel", kernel},
          {"epochs", epochs},
          {"steps", steps},
          {"train_size", train_size},
          {"parameters", parameters},
          {"final_loss", final_loss},
          {"accuracy", train_accuracy},
          {"train_accuracy", train_accuracy},
          {"test_accuracy", test_accuracy},
          {"validation_accuracy", optional_json(validation_accuracy)},
          {"train_seconds", train_seconds},
          {"seconds", train_seconds},
          {"us_per_sample", us_per_sample},
          {"model", written.empty() ? nlohmann::json() : nlohmann::json(written.front().string())}};
}

TrainRunSummary run_training(const TrainRunOptions& options, const TrainRunCallbacks& callbacks) {
  io::check_output_path(options.out);
  const data::DataSplit data = data::load_dataset(options.data);
  const std::optional<ResumeState> resume = load_resume(options, data);
  std::optional<model::FloatMlp> init;
  if (options.init) {
    init = model::load_float_checkpoint(*options.init);
    if (init->inputs() != data.train.features || init->outputs() != data.train.classes) {
      throw core::input_error("--init {}: the model is {} but {} has {} features and {} classes", options.init->string(),
                        init->architecture(), data.name, data.train.features, data.train.classes);
    }
  }
  TensorTrainConfig config = options.tensor;
  if (init) {
    const std::vector<std::size_t> sizes = model::layer_sizes(*init);
    config.hidden.assign(sizes.begin() + 1, sizes.end() - 1);  // the checkpoint decides the shape
  }

  if (resume && options.engine != Engine::kTensor) throw core::input_error("only tensor-engine runs can be resumed");
  const Trained trained = options.engine == Engine::kTensor
                              ? train_with_tensor_engine(data, config, init, resume, callbacks)
                              : train_with_scalar_engine(data, config, init, callbacks);
  if (trained.stopped) {
    TrainRunSummary summary;
    summary.dataset = data.name;
    summary.engine = options.engine;
    summary.architecture = trained.model.architecture();
    summary.interrupted = true;
    summary.position = trained.position;
    summary.steps = trained.steps;
    summary.written.push_back(write_resume_file(options, data, config, trained));
    return summary;
  }

  const model::Evaluation test = quant::evaluate_float(trained.model, data.test);
  TrainRunSummary summary;
  summary.dataset = data.name;
  summary.engine = options.engine;
  summary.architecture = trained.model.architecture();
  summary.kernel = std::string(kernels::selected_kernel());
  summary.epochs = trained.history.size();
  summary.steps = trained.steps;
  summary.train_size = trained.train_size;
  for (const model::DenseLayer& layer : trained.model.layers) summary.parameters += layer.weight.size() + layer.bias.size();
  summary.final_loss = trained.final_loss;
  summary.train_accuracy = trained.train_accuracy;
  summary.test_accuracy = test.accuracy();
  summary.validation_accuracy = trained.validation_accuracy;
  summary.train_seconds = trained.seconds;
  summary.us_per_sample = trained.us_per_sample;
  summary.confusion = test.confusion();
  summary.per_class_accuracy = test.per_class_accuracy();
  summary.history = trained.history;
  if (options.write_outputs) {
    write_outputs(options, config, summary, trained.model);
    remove_stale_resume_file(options.out);
  }
  return summary;
}

}  // namespace seatorch::train
