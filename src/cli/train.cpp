// `seatorch train`: parses the training flags into TrainRunOptions, shows progress, and
// calls run_training(). Flags left unset keep the data set's recipe (default_train_config),
// or with --resume the interrupted run's settings (read from its resume file).
// SIGINT/SIGTERM stop a tensor-engine run at the next step boundary (stop_signal.hpp): it
// writes its resume file and exits 128 + the signal's number (130, 143).
#include "command.hpp"
#include "progress.hpp"
#include "stop_signal.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/kernels/matmul.hpp"
#include "seatorch/nn/mlp.hpp"
#include "seatorch/train/recipes.hpp"
#include "seatorch/train/resume.hpp"
#include "seatorch/train/train_run.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

namespace seatorch::cli {
namespace {

struct TrainFlags {
  std::string dataset = "mnist";
  std::string data_dir;
  std::string csv;
  std::string label_col;
  std::string engine = "tensor";
  std::vector<std::size_t> hidden;
  std::size_t epochs = 0;
  std::size_t batch = 0;
  std::string opt;
  double lr = 0.0;
  double momentum = 0.0;
  bool nesterov = false;
  double weight_decay = 0.0;
  std::string schedule;
  std::size_t step_size = 0;
  double gamma = 0.0;
  double dropout = 0.0;
  std::uint64_t seed = 0;
  std::size_t limit = 0;
  double val_split = 0.0;
  std::size_t max_steps = 0;
  bool no_shuffle = false;
  std::string init;
  std::string resume;  // "" with the flag given: the resume file beside --out
  std::string out = "seatorch-out/model.safetensors";
  std::string kernel;
  std::size_t threads = 0;  // 0: SEATORCH_THREADS, else 1
  bool json = false;
  std::string recipe;
  std::string augment;
  double rotate = 0.0;
  double shift = 0.0;
  double scale = 0.0;
  double shear = 0.0;
  double elastic_alpha = 0.0;
  double elastic_sigma = 0.0;
  std::string save_examples;
};

// given(name): whether the user typed flag `name` on this command line.
auto typed_flags(const CLI::App& app) {
  return [&app](const char* name) { return app.count(name) > 0; };
}

// The starting point: the data set's recipe, or with --resume the interrupted run's options.
train::TrainRunOptions base_options(const TrainFlags& f, const CLI::App& app) {
  const auto given = typed_flags(app);
  if (given("--resume")) {
    if (given("--recipe")) {
      throw core::input_error("--recipe: a resumed run keeps the recipe it started with; drop --recipe");
    }
    const std::filesystem::path path =
        f.resume.empty() ? train::default_resume_path(f.out) : std::filesystem::path(f.resume);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      throw core::input_error("--resume: {} does not exist; an interrupted `seatorch train` writes it beside its --out",
                              path.string());
    }
    // Read once: its options are the defaults here, and run_training checks the rest of it.
    auto state = std::make_shared<const train::ResumeState>(train::load_resume_state(path));
    train::TrainRunOptions options = state->options;
    options.resume = path;
    options.resume_state = std::move(state);
    return options;
  }
  train::TrainRunOptions options;
  options.data.name = f.dataset;
  options.engine = train::parse_engine(f.engine);
  options.tensor = given("--recipe") ? train::find_recipe(f.recipe).config()
                                     : train::default_train_config(f.dataset, options.engine);
  options.out = f.out;
  return options;
}

// Each set flag overrides the starting point; `given` says whether the user typed it.
train::TrainRunOptions run_options(const TrainFlags& f, const CLI::App& app) {
  const auto given = typed_flags(app);
  train::TrainRunOptions options = base_options(f, app);
  if (given("--dataset")) options.data.name = f.dataset;
  if (given("--data-dir")) options.data.data_dir = f.data_dir;
  if (given("--csv")) options.data.csv_path = f.csv;
  if (given("--label-col")) options.data.label_col = f.label_col;
  if (given("--engine")) options.engine = train::parse_engine(f.engine);
  if (given("--out")) options.out = f.out;
  train::TensorTrainConfig& c = options.tensor;
  if (given("--hidden")) c.hidden = f.hidden;
  if (given("--epochs")) c.epochs = f.epochs;
  if (given("--batch")) c.batch = f.batch;
  if (given("--opt")) c.optimizer = train::parse_optimizer(f.opt);
  if (given("--lr")) c.lr = f.lr;
  if (given("--momentum")) c.momentum = f.momentum;
  if (given("--nesterov")) c.nesterov = f.nesterov;
  if (given("--weight-decay")) c.weight_decay = f.weight_decay;
  if (given("--schedule")) c.schedule.kind = train::parse_schedule(f.schedule);
  if (given("--step-size")) c.schedule.step_size = f.step_size;
  if (given("--gamma")) c.schedule.gamma = f.gamma;
  if (given("--dropout")) c.dropout = f.dropout;
  if (given("--seed")) c.seed = f.seed;
  if (given("--limit")) c.limit = f.limit;
  if (given("--val-split")) c.validation = f.val_split;
  if (given("--max-steps")) c.max_steps = f.max_steps;
  if (given("--no-shuffle")) c.shuffle = !f.no_shuffle;
  if (given("--augment")) augment::parse_augment_list(f.augment, c.augment);
  if (given("--rotate")) c.augment.ranges.rotate_degrees = f.rotate;
  if (given("--shift")) c.augment.ranges.shift_pixels = f.shift;
  if (given("--scale")) c.augment.ranges.scale = f.scale;
  if (given("--shear")) c.augment.ranges.shear_degrees = f.shear;
  if (given("--elastic-alpha")) c.augment.elastic_params.alpha = f.elastic_alpha;
  if (given("--elastic-sigma")) c.augment.elastic_params.sigma = f.elastic_sigma;
  if (!f.init.empty()) options.init = f.init;
  if (given("--save-examples")) options.save_examples = f.save_examples;
  return options;
}

// A flag that tunes a setting this run does not use was ignored without a word (`--gamma 0.5`
// on a cosine schedule, `--momentum` with Adam, `--rotate` with --augment none): say which, and
// what would make it count.
void check_flags_apply(const CLI::App& app, const train::TensorTrainConfig& c) {
  const auto refuse_unless = [&app](bool used, std::initializer_list<const char*> flags, std::string_view setting,
                                    std::string_view current, std::string_view fix) {
    if (used) return;
    if (const auto flag = first_given(app, flags)) {
      throw core::input_error("{} tunes {}, which this run does not use ({}); add {} or leave {} out", *flag, setting,
                              current, fix, *flag);
    }
  };
  refuse_unless(c.schedule.kind == train::ScheduleKind::kStep, {"--step-size", "--gamma"}, "the step schedule",
                fmt::format("its schedule is {}", train::schedule_name(c.schedule.kind)), "--schedule step");
  refuse_unless(c.optimizer == train::OptimizerKind::kSgd, {"--momentum", "--nesterov"}, "SGD",
                fmt::format("its optimizer is {}", train::optimizer_name(c.optimizer)), "--opt sgd");
  const std::string augmentations = fmt::format("its augmentations are {}", augment::augment_list(c.augment));
  refuse_unless(c.augment.affine, {"--rotate", "--shift", "--scale", "--shear"}, "the affine augmentation",
                augmentations, "affine to --augment");
  refuse_unless(c.augment.elastic, {"--elastic-alpha", "--elastic-sigma"}, "the elastic augmentation", augmentations,
                "elastic to --augment");
}

std::string percent_or_dash(const std::optional<double>& v) { return v ? fmt::format("{:.4f}", *v) : std::string("-"); }

int run_train(const TrainFlags& flags, const CLI::App& app) {
  if (!flags.kernel.empty()) kernels::select_kernel(flags.kernel);
  use_threads(flags.threads);
  const train::TrainRunOptions options = run_options(flags, app);
  const train::TensorTrainConfig& c = options.tensor;
  check_flags_apply(app, c);
  // From here on a stop signal is a request, answered at the next step boundary. The scalar
  // engine cannot stop between steps: it keeps the default (immediate) signals.
  std::optional<StopSignals> signals;
  if (options.engine == train::Engine::kTensor) signals.emplace();
  spdlog::info("{} on {} with the {} engine: hidden {}, {} epochs, batch {}, {} lr {} ({}), augment {}, seed {}",
               options.resume ? "resuming training" : "training", options.data.name, train::engine_name(options.engine),
               fmt::join(c.hidden, ","), c.epochs, c.batch, train::optimizer_name(c.optimizer), c.lr,
               train::schedule_name(c.schedule.kind), augment::augment_list(c.augment), c.seed);

  const bool terminal = stderr_is_terminal() && spdlog::get_level() <= spdlog::level::info;
  std::unique_ptr<ProgressBar> bar;
  train::TrainRunCallbacks callbacks;
  callbacks.on_step = [&](const train::TensorStepReport& s) {
    if (!terminal) return;
    if (!bar || s.step_in_epoch == 1) {
      bar = std::make_unique<ProgressBar>(fmt::format("epoch {}/{}", s.epoch, c.epochs), s.steps_per_epoch, true);
    }
    bar->update(s.step_in_epoch, fmt::format("loss {:.4f}", s.loss));
  };
  const std::size_t log_every = c.epochs > 20 ? c.epochs / 10 : 1;
  callbacks.on_epoch = [&](const train::TrainEpoch& e) {
    if (bar) bar->finish();
    const bool show = e.epoch == 1 || e.epoch % log_every == 0 || e.epoch == c.epochs;
    spdlog::log(show ? spdlog::level::info : spdlog::level::debug,
                "epoch {:>3}/{}  loss {:.4f}  train acc {:.4f}  test acc {}  val acc {}  {:.2f} s{}", e.epoch, c.epochs,
                e.loss, e.train_accuracy, percent_or_dash(e.test_accuracy), percent_or_dash(e.validation_accuracy),
                e.seconds, e.eval_seconds > 0.0 ? fmt::format(" (+{:.2f} s evaluating)", e.eval_seconds) : "");
  };

  if (signals) callbacks.should_stop = [] { return StopSignals::received() != 0; };
  const train::TrainRunSummary summary = train::run_training(options, callbacks);
  const train::TrainResult& r = summary.training;
  if (summary.interrupted()) {
    if (bar) bar->finish();
    const int signal = StopSignals::received();
    const train::TrainPosition& p = r.position;
    spdlog::warn("interrupted by {} after {} steps (epoch {}, step {} of it done); wrote {}; continue with "
                 "`seatorch train --resume {}`",
                 StopSignals::name(signal), r.steps, p.epoch + 1, p.step_in_epoch, summary.written.front().string(),
                 summary.written.front().string());
    return 128 + signal;
  }
  if (StopSignals::received() != 0) {
    spdlog::warn("{} arrived after the last step: the run completed", StopSignals::name(StopSignals::received()));
  }
  spdlog::info("{} {}: test accuracy {:.4f}, train accuracy {:.4f}, {} steps, {:.2f} s of training ({:.1f} us/sample)",
               summary.model.architecture(), train::engine_name(summary.engine), r.test.accuracy(), r.train_accuracy,
               r.steps, r.seconds, r.us_per_sample);
  for (const auto& path : summary.written) spdlog::info("wrote {}", path.string());
  if (flags.json) print_json(summary.to_json());
  return 0;
}

}  // namespace

Command register_train(CLI::App& root) {
  auto f = std::make_shared<TrainFlags>();
  CLI::App* app = root.add_subcommand("train", "Train an MLP classifier and write its checkpoint, metrics and plots");
  Command command{app, {}};
  command.sets("data set", app->add_option("--dataset", f->dataset, "Data set"))
      ->check(CLI::IsMember(data::dataset_names()))
      ->capture_default_str();
  command.sets("data directory",
               app->add_option("--data-dir", f->data_dir,
                               "Directory of the data set's files (default: $SEATORCH_DATA/<name>, data/<name>)"));
  command.sets(
      "CSV file",
      app->add_option("--csv", f->csv, "CSV file for --dataset csv (header row; last 20% of rows are the test part)"));
  command.sets("label column", app->add_option("--label-col", f->label_col,
                                               "CSV label column: a header name or 0-based index (default: last)"));
  command.sets("engine", app->add_option("--engine", f->engine, "Autograd engine"))
      ->check(CLI::IsMember({"tensor", "scalar"}))
      ->capture_default_str();
  command.sets("hidden widths",
               add_counts(app, "--hidden", f->hidden, "Hidden-layer widths, comma-separated (e.g. 256,128)", 1,
                          nn::kMaxHiddenWidth));
  command.sets("epochs", add_count(app, "--epochs", f->epochs, "Passes over the training set", 1));
  command.sets("batch size",
               add_count(app, "--batch", f->batch, "Samples per optimizer step (0: the whole training set)"));
  app->add_option("--opt", f->opt, "Optimizer")->check(CLI::IsMember({"sgd", "adam", "adamw"}));
  command.sets("learning rate", app->add_option("--lr", f->lr, "Learning rate"))->check(kPositiveReal);
  command.sets("momentum", app->add_option("--momentum", f->momentum, "SGD momentum"))->check(real_in(0.0, 1.0));
  app->add_flag("--nesterov", f->nesterov, "Nesterov momentum (SGD)");
  command
      .sets("weight decay",
            app->add_option("--weight-decay", f->weight_decay, "Weight decay (L2 for sgd/adam, decoupled for adamw)"))
      ->check(real_in(0.0, 1.0));
  app->add_option("--schedule", f->schedule, "Learning-rate schedule")
      ->check(CLI::IsMember({"constant", "step", "cosine", "onecycle"}));
  command.sets("step size", add_count(app, "--step-size", f->step_size, "Epochs between decays (--schedule step)", 1));
  command.sets("decay factor", app->add_option("--gamma", f->gamma, "Decay factor (--schedule step)"))
      ->check(kPositiveReal);
  command.sets("dropout", app->add_option("--dropout", f->dropout, "Dropout after each hidden ReLU, in [0, 1)"))
      ->check(real_in(0.0, 0.99));
  add_count(app, "--seed", f->seed, "Seed for initialization, data order, dropout and augmentation")
      ->capture_default_str();
  command.sets("training limit",
               add_count(app, "--limit", f->limit, "Train on the first N training samples only (0: all)"));
  app->add_option("--val-split", f->val_split, "Hold out this fraction of the training set for validation")
      ->check(real_in(0.0, 0.9));
  command.sets("maximum steps",
               add_count(app, "--max-steps", f->max_steps, "Stop after this many optimizer steps (0: no limit)"));
  app->add_flag("--no-shuffle", f->no_shuffle, "Keep the files' order in every epoch");
  command
      .sets("initial weights",
            app->add_option("--init", f->init,
                            "Start from the weights of this checkpoint (its architecture wins over --hidden)"))
      ->check(CLI::ExistingFile);
  command
      .sets(
          "resume file",
          app->add_option("--resume", f->resume,
                          "Continue the interrupted run saved in this resume file (no value: resume.safetensors beside "
                          "--out); its settings are the defaults and flags that differ are refused"))
      ->expected(0, 1);
  app->add_option("--out", f->out,
                  "Checkpoint to write; metrics.json and the plots go beside it (with --resume: the "
                  "interrupted run's)")
      ->capture_default_str();
  add_threads(command, app, f->threads, kTrainingThreadWork);
  command.sets("matmul kernel", app->add_option("--kernel", f->kernel,
                                                "Matmul kernel (default: the best this CPU has; see SEATORCH_KERNEL)"));
  app->add_flag("--json", f->json, "Print the results as one JSON object on stdout");
  std::string recipes = "Start from a named recipe instead of the data set's defaults; later flags override it:";
  std::vector<std::string> recipe_names;
  for (const train::Recipe& r : train::recipes()) {
    recipes += fmt::format("\n  {}: {}\n    = {}", r.name, r.purpose, train::describe_recipe(r));
    recipe_names.emplace_back(r.name);
  }
  command.sets("recipe", app->add_option("--recipe", f->recipe, recipes))->check(CLI::IsMember(recipe_names));
  const augment::AugmentConfig defaults;
  command.sets("augmentations", app->add_option("--augment", f->augment,
                                                "Augment the training images each epoch: affine, elastic, "
                                                "affine,elastic or none (default: the recipe's)"));
  command.sets("rotation range", app->add_option("--rotate", f->rotate,
                                                 fmt::format("--augment affine: rotation within +-DEG degrees "
                                                             "(default {})",
                                                             defaults.ranges.rotate_degrees)));
  command.sets("shift range", app->add_option("--shift", f->shift,
                                              fmt::format("--augment affine: shift within +-PX pixels in x and y "
                                                          "(default {})",
                                                          defaults.ranges.shift_pixels)));
  command.sets("scale range", app->add_option("--scale", f->scale,
                                              fmt::format("--augment affine: scale within 1 +- S (default {})",
                                                          defaults.ranges.scale)));
  command.sets("shear range", app->add_option("--shear", f->shear,
                                              fmt::format("--augment affine: horizontal shear within +-DEG degrees "
                                                          "(default {})",
                                                          defaults.ranges.shear_degrees)));
  command.sets("elastic alpha",
               app->add_option("--elastic-alpha", f->elastic_alpha,
                               fmt::format("--augment elastic: displacement scale in pixels (default {})",
                                           defaults.elastic_params.alpha)));
  command.sets("elastic sigma", app->add_option("--elastic-sigma", f->elastic_sigma,
                                                fmt::format("--augment elastic: smoothing width in pixels (default {})",
                                                            defaults.elastic_params.sigma)));
  command.sets("examples directory",
               app->add_option("--save-examples", f->save_examples,
                               "Write augmented-examples.png into DIR before training: training images as the "
                               "first epochs augment them"));
  command.run = [f, app] { return run_train(*f, *app); };
  return command;
}

}  // namespace seatorch::cli
