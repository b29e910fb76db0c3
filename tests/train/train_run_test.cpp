// run_training on the committed MNIST subset (data/mnist-small: 2,000 training and 1,000
// test images): the quality bar (>= 90% on the test part) and the outputs.
#include "seatorch/core/parallel.hpp"
#include "seatorch/train/train_run.hpp"

#include "../scratch_dir.hpp"
#include "seatorch/io/safetensors.hpp"
#include "seatorch/model/float_checkpoint.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace {

seatorch::train::TrainRunOptions subset_options() {
  seatorch::train::TrainRunOptions options;
  options.data.name = "mnist";
  options.data.data_dir = std::filesystem::path(SEATORCH_SOURCE_DIR) / "data" / "mnist-small";
  options.tensor = seatorch::train::default_train_config("mnist", seatorch::train::Engine::kTensor);
  // The full-MNIST recipe with more steps per epoch and a higher rate for 2,000 images.
  options.tensor.epochs = 10;
  options.tensor.batch = 32;
  options.tensor.lr = 3e-3;
  return options;
}

}  // namespace

TEST_CASE("the tensor engine reaches 90% on the committed MNIST subset", "[train]") {
  const seatorch::test::ScratchDir dir;
  seatorch::train::TrainRunOptions options = subset_options();
  options.out = dir / "model.safetensors";
  const seatorch::train::TrainRunSummary summary = seatorch::train::run_training(options);
  INFO("test accuracy " << summary.training.test.accuracy() << ", train accuracy " << summary.training.train_accuracy);
  CHECK(summary.training.test.accuracy() >= 0.90);
  CHECK(summary.model.architecture() == "784-256-128-10");
  CHECK(summary.training.history.size() == 10);

  // The checkpoint holds the model that was evaluated, under PyTorch's names.
  const seatorch::model::FloatMlp model = seatorch::model::load_float_checkpoint(options.out);
  CHECK(model.architecture() == "784-256-128-10");
  const seatorch::io::SafetensorsFile file = seatorch::io::load_safetensors(options.out);
  CHECK(file.tensors.count("0.weight") == 1);
  CHECK(file.tensors.count("4.bias") == 1);
  CHECK(file.metadata.at("dataset") == "mnist");

  // metrics.json has the per-epoch history; the plots exist and are SVG.
  std::ifstream metrics_file(dir / "metrics.json");
  const nlohmann::json metrics = nlohmann::json::parse(metrics_file);
  CHECK(metrics.at("history").size() == 10);
  CHECK(metrics.at("test_accuracy").get<double>() == summary.training.test.accuracy());
  for (const char* svg : {"loss.svg", "accuracy.svg", "confusion.svg"}) {
    std::ifstream in(dir / svg);
    std::string head(14, '\0');
    in.read(head.data(), 14);
    INFO(svg);
    CHECK(head == "<?xml version=");
  }
}

TEST_CASE("the same seed and flags give a bit-identical checkpoint, on 1, 2 or 3 threads, split evenly or not",
          "[train]") {
  const seatorch::test::ScratchDir dir;
  seatorch::train::TrainRunOptions options = subset_options();
  options.tensor.epochs = 1;
  options.tensor.limit = 1000;
  options.tensor.batch = 64;  // products, batches, augmentation and Adam all large enough to split
  options.out = dir / "a.safetensors";
  seatorch::train::run_training(options);
  const auto a = seatorch::io::load_safetensors(dir / "a.safetensors");
  // The shares the pool measures as it goes (none fixed), and fixed uneven ones (a slower
  // second core).
  struct Run {
    std::size_t threads;
    std::vector<double> fixed_shares;
  };
  const std::vector<Run> runs{{1, {}}, {2, {}}, {3, {}}, {2, {0.7, 0.3}}, {3, {0.2, 0.45, 0.35}}};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Run& run = runs[i];
    const seatorch::core::ScopedThreads count(run.threads);
    std::optional<seatorch::core::ScopedShares> shares;
    if (!run.fixed_shares.empty()) shares.emplace(run.fixed_shares);
    options.out = dir / fmt::format("run{}.safetensors", i);
    seatorch::train::run_training(options);
    const auto b = seatorch::io::load_safetensors(options.out);
    for (const auto& [name, tensor] : a.tensors) {
      INFO(run.threads << " threads, shares " << Catch::Detail::stringify(run.fixed_shares) << ", tensor " << name);
      CHECK(tensor.bytes == b.tensors.at(name).bytes);
    }
  }
}
