// run_training(): data -> engine -> outputs, or the resume file of an interrupted run.
#include "seatorch/train/train_run.hpp"

#include "seatorch/augment/example_grid.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/image/png_writer.hpp"
#include "seatorch/io/atomic_file.hpp"
#include "seatorch/kernels/matmul.hpp"
#include "seatorch/model/engine_weights.hpp"
#include "seatorch/model/float_checkpoint.hpp"
#include "seatorch/train/resume.hpp"
#include "seatorch/train/train_outputs.hpp"

#include <spdlog/spdlog.h>

#include <utility>

namespace seatorch::train {
namespace {

nlohmann::json optional_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

// The resume file's state checked against this run, or nothing when the run is not a resume.
std::optional<EngineStart> resume_start(const TrainRunOptions& options, const data::DataSplit& data) {
  if (!options.resume) return std::nullopt;
  const std::string source = options.resume->string();
  if (options.init) {
    throw core::option_error("initial weights",
                             "a resumed run cannot also start from other weights: {} holds the "
                             "interrupted run's",
                             source);
  }
  const ResumeState state = options.resume_state ? *options.resume_state : load_resume_state(*options.resume);
  check_resume_matches(state, options, source);
  check_resume_data(state, fingerprint(data.train), source);
  return EngineStart{state.model, state.optimizer, state.position, state.history};
}

// The interrupted run's resume file; returns its path.
std::filesystem::path write_resume_file(const TrainRunOptions& options, const data::DataSplit& data,
                                        const EngineRun& run) {
  ResumeState state;
  state.options = options;
  state.options.init.reset();
  state.options.resume.reset();
  state.options.resume_state.reset();
  state.position = run.result.position;
  state.history = run.result.history;
  state.model = model::state_dict_of(run.model);
  state.optimizer = run.optimizer_state;
  state.train_data = fingerprint(data.train);
  const std::filesystem::path path = default_resume_path(options.out);
  save_resume_state(path, state);
  return path;
}

// The augmentation examples of this run's settings; returns the file written.
std::filesystem::path write_examples(const TrainRunOptions& options, const data::DataSplit& data) {
  if (!options.tensor.augment.enabled()) {
    throw core::option_error("examples directory", "there is nothing to show: no augmentation is selected");
  }
  const std::filesystem::path path = *options.save_examples / kExamplesFile;
  std::error_code ec;
  std::filesystem::create_directories(*options.save_examples, ec);
  io::check_output_path(path);
  image::write_png(path, augment::example_grid(options.tensor.augment, data.train, options.tensor.seed));
  spdlog::info("wrote {}: training images (left column) as the first epochs augment them", path.string());
  return path;
}

// A finished run's resume file is stale: continuing it would redo finished work.
void remove_stale_resume_file(const std::filesystem::path& out) {
  const std::filesystem::path path = default_resume_path(out);
  std::error_code ec;
  if (std::filesystem::remove(path, ec)) spdlog::info("removed {}: the run it would resume is complete", path.string());
}

}  // namespace

nlohmann::json TrainRunSummary::to_json() const {
  const TrainResult& r = training;
  return {{"dataset", dataset},
          {"engine", engine_name(engine)},
          {"architecture", model.architecture()},
          {"kernel", kernel},
          {"epochs", r.history.size()},
          {"steps", r.steps},
          {"train_size", r.train_size},
          {"parameters", r.parameters},
          {"final_loss", r.final_loss},
          {"accuracy", r.train_accuracy},
          {"train_accuracy", r.train_accuracy},
          {"test_accuracy", r.test.accuracy()},
          {"validation_accuracy", optional_json(r.validation_accuracy)},
          {"train_seconds", r.seconds},
          {"seconds", r.seconds},
          {"us_per_sample", r.us_per_sample},
          {"model", written.empty() ? nlohmann::json() : nlohmann::json(written.front().string())}};
}

TrainRunSummary run_training(const TrainRunOptions& requested, const TrainRunCallbacks& callbacks) {
  io::check_output_path(requested.out);
  const data::DataSplit data = data::load_dataset(requested.data);
  const std::optional<EngineStart> start = resume_start(requested, data);
  TrainRunOptions options = requested;  // with the recipe as trained: --init decides the shape
  std::optional<model::FloatMlp> init;
  if (options.init) {
    init = model::load_float_checkpoint(*options.init);
    if (init->inputs() != data.train.features || init->outputs() != data.train.classes) {
      throw core::option_error("initial weights", "{}: the model is {} but {} has {} features and {} classes",
                               options.init->string(), init->architecture(), data.name, data.train.features,
                               data.train.classes);
    }
    const std::vector<std::size_t> sizes = model::layer_sizes(*init);
    options.tensor.hidden.assign(sizes.begin() + 1, sizes.end() - 1);
  }

  if (options.engine == Engine::kScalar && options.tensor.augment.enabled()) {
    throw core::option_error("augmentations", "the scalar engine does not augment its data; use the tensor engine");
  }
  std::optional<std::filesystem::path> examples;
  if (options.save_examples) examples = write_examples(options, data);

  EngineRun run = run_engine(options.engine, data, options.tensor, init, start, callbacks);
  std::vector<std::filesystem::path> written;
  if (run.result.stopped) written.push_back(write_resume_file(options, data, run));
  TrainRunSummary summary{data.name,
                          options.engine,
                          std::string(kernels::selected_kernel()),
                          std::move(run.model),
                          std::move(run.result),
                          std::move(written)};
  if (!summary.interrupted() && options.write_outputs) {
    write_train_outputs(options, summary);
    remove_stale_resume_file(options.out);
  }
  if (examples) summary.written.push_back(*examples);
  return summary;
}

}  // namespace seatorch::train
