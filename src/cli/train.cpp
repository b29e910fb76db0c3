// `seatorch train`: parses the training flags, calls the library's trainer, reports.
#include "command.hpp"

#include "seatorch/data/registry.hpp"
#include "seatorch/train/scalar_trainer.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <vector>

namespace seatorch::cli {
namespace {

struct TrainFlags {
  std::string dataset = "xor";
  std::string engine = "scalar";
  std::vector<std::size_t> hidden;
  std::string activation;
  std::size_t epochs = 0;
  std::size_t batch = 0;
  double lr = 0.0;
  std::uint64_t seed = 0;
  bool json = false;

  CLI::Option* hidden_opt = nullptr;
  CLI::Option* activation_opt = nullptr;
  CLI::Option* epochs_opt = nullptr;
  CLI::Option* batch_opt = nullptr;
  CLI::Option* lr_opt = nullptr;
};

// The data set's recipe, overridden by every flag the user gave.
ScalarTrainConfig scalar_config(const TrainFlags& flags) {
  ScalarTrainConfig config = default_scalar_config(flags.dataset);
  config.seed = flags.seed;
  if (flags.hidden_opt->count() > 0) config.hidden = flags.hidden;
  if (flags.activation_opt->count() > 0) config.activation = scalar::parse_activation(flags.activation);
  if (flags.epochs_opt->count() > 0) config.epochs = flags.epochs;
  if (flags.batch_opt->count() > 0) config.batch = flags.batch;
  if (flags.lr_opt->count() > 0) config.lr = flags.lr;
  return config;
}

std::string architecture(std::size_t inputs, const std::vector<std::size_t>& hidden,
                         std::size_t outputs) {
  std::vector<std::size_t> sizes{inputs};
  sizes.insert(sizes.end(), hidden.begin(), hidden.end());
  sizes.push_back(outputs);
  return fmt::format("{}", fmt::join(sizes, "-"));
}

int run_train(const TrainFlags& flags) {
  const DataSplit data = load_dataset(flags.dataset);
  const ScalarTrainConfig config = scalar_config(flags);
  const std::string arch = architecture(data.train.features, config.hidden, data.train.classes);
  spdlog::info("training {} MLP on {} ({} samples) with the {} engine, seed {}", arch, data.name,
               data.train.size(), flags.engine, config.seed);

  const std::size_t log_every = std::max<std::size_t>(1, config.epochs / 10);
  const ScalarTrainResult result = train_scalar(data, config, [&](const EpochReport& r) {
    const bool show = r.epoch == 1 || r.epoch % log_every == 0 || r.epoch == config.epochs;
    spdlog::log(show ? spdlog::level::info : spdlog::level::debug,
                "epoch {:>4}/{}  loss {:.4f}  train acc {:.4f}  {:.3f} s", r.epoch, config.epochs,
                r.loss, r.train_accuracy, r.seconds);
  });

  const double nodes_per_second = result.seconds > 0 ? static_cast<double>(result.nodes) / result.seconds : 0.0;
  spdlog::info("done: train accuracy {:.4f}, test accuracy {:.4f}, final loss {:.4f}, {} steps in {:.3f} s ({:.1f} M nodes/s)",
               result.train_accuracy, result.test_accuracy, result.final_loss, result.steps,
               result.seconds, nodes_per_second / 1e6);
  if (flags.json) {
    print_json({{"dataset", data.name},
                {"engine", flags.engine},
                {"architecture", arch},
                {"seed", config.seed},
                {"epochs", config.epochs},
                {"steps", result.steps},
                {"parameters", result.parameters},
                {"accuracy", result.train_accuracy},
                {"train_accuracy", result.train_accuracy},
                {"test_accuracy", result.test_accuracy},
                {"final_loss", result.final_loss},
                {"seconds", result.seconds},
                {"graph_nodes", result.nodes},
                {"nodes_per_second", nodes_per_second}});
  }
  return 0;
}

}  // namespace

Command register_train(CLI::App& root) {
  auto flags = std::make_shared<TrainFlags>();
  CLI::App* app = root.add_subcommand("train", "Train an MLP classifier");
  app->add_option("--dataset", flags->dataset, "Data set")
      ->check(CLI::IsMember(dataset_names()))
      ->capture_default_str();
  app->add_option("--engine", flags->engine, "Autograd engine")
      ->check(CLI::IsMember({"scalar"}))
      ->capture_default_str();
  flags->hidden_opt = app->add_option("--hidden", flags->hidden,
                                      "Hidden-layer widths, comma-separated (e.g. 16,16)")
                          ->delimiter(',')
                          ->check(kPositiveInteger);
  flags->activation_opt = app->add_option("--activation", flags->activation, "Hidden activation")
                              ->check(CLI::IsMember({"relu", "tanh"}));
  flags->epochs_opt = app->add_option("--epochs", flags->epochs, "Passes over the training set")
                          ->check(kPositiveInteger);
  flags->batch_opt = app->add_option("--batch", flags->batch, "Samples per SGD step (0: all)");
  flags->lr_opt = app->add_option("--lr", flags->lr, "Learning rate")->check(kPositiveReal);
  app->add_option("--seed", flags->seed, "Seed for initialization and data order")->capture_default_str();
  app->add_flag("--json", flags->json, "Print the results as one JSON object on stdout");
  return Command{app, [flags] { return run_train(*flags); }};
}

}  // namespace seatorch::cli
