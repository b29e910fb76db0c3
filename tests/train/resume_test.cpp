// Stopping and resuming the tensor trainer: a run stopped after any step (mid-epoch or at an
// epoch boundary) and resumed, however often, ends with the uninterrupted run's weights and
// epoch history bit for bit; the resume file round-trips every field, refuses conflicting
// settings and other data by name, and every malformed resume file is one InputError;
// run_training writes only the resume file when stopped and removes it when complete.
// The oracle everywhere is the same run never interrupted.
#include "../data/data_test_util.hpp"
#include "../scratch_dir.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/data/registry.hpp"
#include "seatorch/io/safetensors.hpp"
#include "seatorch/train/resume.hpp"
#include "seatorch/train/tensor_trainer.hpp"
#include "seatorch/train/train_recipe.hpp"
#include "seatorch/train/train_run.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

using namespace seatorch;

namespace {

// moons (180 training samples after the validation cut): 4 steps per epoch, the last one
// short, with every source of state a resume must restore: AdamW moments, dropout, the
// cosine schedule, the shuffle.
train::TensorTrainConfig recipe() {
  train::TensorTrainConfig c;
  c.hidden = {8, 8};
  c.epochs = 3;
  c.batch = 48;
  c.optimizer = train::OptimizerKind::kAdamW;
  c.weight_decay = 0.01;
  c.lr = 0.01;
  c.schedule = {train::ScheduleKind::kCosine};
  c.dropout = 0.3;
  c.validation = 0.1;
  c.seed = 4;
  return c;
}

std::vector<float> flat_weights(const nn::StateDict& state) {
  std::vector<float> flat;
  for (const nn::NamedBuffer& b : state) flat.insert(flat.end(), b.data.begin(), b.data.end());
  return flat;
}

// should_stop that says yes at its every-th call.
std::function<bool()> stop_every(std::size_t every) {
  auto calls = std::make_shared<std::size_t>(0);
  return [calls, every] { return ++*calls % every == 0; };
}

// The run continued from a stopped one.
train::TensorTrainConfig resumed(train::TensorTrainConfig config, const train::TensorTrainOutput& stopped) {
  config.initial_parameters = stopped.model.state_dict();
  config.initial_optimizer_state = stopped.optimizer_state;
  config.start = stopped.result.position;
  return config;
}

std::vector<char> file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A resume state from a real stopped run (after 6 steps: mid-epoch 2).
train::ResumeState stopped_state(const data::DataSplit& data) {
  train::TensorTrainCallbacks callbacks;
  callbacks.should_stop = stop_every(6);
  const train::TensorTrainOutput out = train::train_tensor(data, recipe(), callbacks);
  REQUIRE(out.result.stopped);
  train::ResumeState state;
  state.options.data.name = "moons";
  state.options.tensor = recipe();
  state.options.out = "runs/model.safetensors";  // recorded in the state, never written
  state.position = out.result.position;
  state.history = out.result.history;
  state.model = out.model.state_dict();
  state.optimizer = out.optimizer_state;
  state.train_data = train::fingerprint(data.train);
  return state;
}

}  // namespace

TEST_CASE("a run stopped after any step and resumed ends bit-identical to the uninterrupted run", "[train]") {
  const data::DataSplit data = data::load_dataset("moons");
  const train::TensorTrainOutput straight = train::train_tensor(data, recipe());
  REQUIRE(straight.result.steps == 12);

  for (std::size_t every : {1, 2, 3, 5}) {
    INFO("stopping at every " << every << "th should_stop call");
    train::TensorTrainConfig config = recipe();
    train::TensorTrainCallbacks callbacks;
    callbacks.should_stop = stop_every(every);
    std::vector<train::TrainEpoch> history;
    std::size_t stops = 0;
    bool mid_epoch = false;
    bool at_boundary = false;
    for (;;) {
      train::TensorTrainOutput out = train::train_tensor(data, config, callbacks);
      history.insert(history.end(), out.result.history.begin(), out.result.history.end());
      if (!out.result.stopped) {
        CHECK(flat_weights(out.model.state_dict()) == flat_weights(straight.model.state_dict()));
        CHECK(out.result.steps == straight.result.steps);
        CHECK(out.result.test.accuracy() == straight.result.test.accuracy());
        break;
      }
      ++stops;
      const train::TrainPosition& p = out.result.position;
      CHECK(p.step_in_epoch < 4);
      CHECK(p.epoch == history.size());  // every finished epoch was reported before the stop
      (p.step_in_epoch == 0 ? at_boundary : mid_epoch) = true;
      REQUIRE(stops < 20);
      config = resumed(recipe(), out);
    }
    CHECK(stops > 0);
    CHECK(mid_epoch);
    if (every == 1) CHECK(at_boundary);
    REQUIRE(history.size() == straight.result.history.size());
    for (std::size_t e = 0; e < history.size(); ++e) {
      INFO("epoch " << e + 1 << ": loss " << history[e].loss << " vs " << straight.result.history[e].loss);
      CHECK(history[e].epoch == e + 1);
      CHECK(history[e].loss == straight.result.history[e].loss);
      CHECK(history[e].train_accuracy == straight.result.history[e].train_accuracy);
      CHECK(history[e].steps == straight.result.history[e].steps);
      CHECK(history[e].lr == straight.result.history[e].lr);
      CHECK(history[e].validation_accuracy == straight.result.history[e].validation_accuracy);
    }
  }
}

TEST_CASE("the trainer refuses resume positions that cannot be", "[train]") {
  const data::DataSplit data = data::load_dataset("moons");
  train::TensorTrainConfig config = recipe();
  config.start.step_in_epoch = 4;  // an epoch has 4 steps: 0..3
  CHECK_THROWS_WITH(train::train_tensor(data, config), Catch::Contains("an epoch has only 4 steps"));
  config.start = {3, 0, 0.0, 0, 0, 0.0};
  CHECK_THROWS_WITH(train::train_tensor(data, config), Catch::Contains("nothing is left to train"));
  config.start = {1, 2, 0.0, 0, 0, 0.0};
  config.max_steps = 6;
  CHECK_THROWS_WITH(train::train_tensor(data, config), Catch::Contains("the limit of 6 steps was already reached"));
}

TEST_CASE("a resume file keeps every field and resuming from it completes the run exactly", "[train]") {
  const data::DataSplit data = data::load_dataset("moons");
  const train::ResumeState state = stopped_state(data);
  const seatorch::test::ScratchDir dir;
  const auto path = dir / "resume.safetensors";
  train::save_resume_state(path, state);
  const train::ResumeState back = train::load_resume_state(path);

  CHECK(train::train_config_json(back.options.tensor) == train::train_config_json(state.options.tensor));
  CHECK(back.options.data.name == "moons");
  CHECK(back.options.out == state.options.out);
  CHECK(back.position.epoch == state.position.epoch);
  CHECK(back.position.step_in_epoch == state.position.step_in_epoch);
  CHECK(back.position.loss_sum == state.position.loss_sum);  // doubles survive JSON exactly
  CHECK(back.position.samples == state.position.samples);
  CHECK(back.position.correct == state.position.correct);
  CHECK(back.train_data == state.train_data);
  REQUIRE(back.history.size() == state.history.size());
  for (std::size_t e = 0; e < back.history.size(); ++e) {
    CHECK(train::train_epoch_json(back.history[e]) == train::train_epoch_json(state.history[e]));  // eval_seconds too
  }
  // A history written before epochs recorded their evaluation time still loads, as 0.
  nlohmann::json old_epoch = train::train_epoch_json(state.history[0]);
  old_epoch.erase("eval_seconds");
  CHECK(train::train_epoch_from_json(old_epoch, {"resume.safetensors", "the history", ""}, "history[0]").eval_seconds ==
        0.0);
  CHECK(flat_weights(back.model) == flat_weights(state.model));
  REQUIRE(back.optimizer.size() == state.optimizer.size());
  for (const nn::NamedBuffer& b : state.optimizer) {
    const nn::NamedBuffer* read = nn::find_buffer(back.optimizer, b.name);
    REQUIRE(read != nullptr);
    CHECK(read->data == b.data);
  }

  train::TensorTrainConfig config = back.options.tensor;
  config.initial_parameters = back.model;
  config.initial_optimizer_state = back.optimizer;
  config.start = back.position;
  CHECK(flat_weights(train::train_tensor(data, config).model.state_dict()) ==
        flat_weights(train::train_tensor(data, recipe()).model.state_dict()));
}

TEST_CASE("resuming with other settings or other data is refused naming each difference", "[train]") {
  const data::DataSplit data = data::load_dataset("moons");
  const train::ResumeState state = stopped_state(data);
  train::TrainRunOptions same = state.options;
  CHECK_NOTHROW(train::check_resume_matches(state, same, "r.safetensors"));
  CHECK_NOTHROW(train::check_resume_data(state, train::fingerprint(data.train), "r.safetensors"));

  train::TrainRunOptions other = state.options;
  other.tensor.lr = 0.5;
  other.tensor.epochs = 7;
  other.tensor.seed = 9;
  other.tensor.shuffle = false;
  other.data.name = "xor";
  other.data.data_dir = "/elsewhere";  // where the files are is not a setting
  other.out = "elsewhere/model.safetensors";
  try {
    train::check_resume_matches(state, other, "r.safetensors");
    FAIL("no error");
  } catch (const core::InputError& e) {
    const std::string message = e.what();
    INFO(message);
    CHECK_THAT(message, Catch::StartsWith("r.safetensors: cannot resume: "));
    for (const char* expected :
         {"--dataset \"xor\" (the run used \"moons\")", "--epochs 7 (the run used 3)", "--lr 0.5 (the run used 0.01)",
          "--seed 9 (the run used 4)", "--no-shuffle true (the run used false)"}) {
      CHECK(message.find(expected) != std::string::npos);
    }
    CHECK(message.find("--data-dir") == std::string::npos);
    CHECK(message.find("--hidden") == std::string::npos);
  }
  const data::DataSplit xor_data = data::load_dataset("xor");
  CHECK_THROWS_WITH(train::check_resume_data(state, train::fingerprint(xor_data.train), "r.safetensors"),
                    Catch::Contains("the training data differs from the interrupted run's (200 samples of 2 features"));
}

TEST_CASE("malformed resume files are each one clear InputError", "[train]") {
  const data::DataSplit data = data::load_dataset("moons");
  const io::SafetensorsFile good = train::resume_file(stopped_state(data));
  CHECK_NOTHROW(train::resume_state_from_file(good, "r"));

  const auto require_invalid = [](const io::SafetensorsFile& file, const std::string& needle) {
    try {
      train::resume_state_from_file(file, "r.safetensors");
      FAIL("no error for a file that should mention: " << needle);
    } catch (const core::InputError& e) {
      const std::string message = e.what();
      INFO("message: " << message);
      CHECK_THAT(message, Catch::StartsWith("r.safetensors"));
      CHECK(message.find(needle) != std::string::npos);
      CHECK(message.find('\n') == std::string::npos);
    }
  };
  const auto with_metadata = [&](const std::string& key, const std::string& value) {
    io::SafetensorsFile f = good;
    f.metadata[key] = value;
    return f;
  };
  const auto without = [&](const std::string& key) {
    io::SafetensorsFile f = good;
    f.metadata.erase(key);
    return f;
  };
  SECTION("a checkpoint is not a resume file") {
    require_invalid(with_metadata("format", "pt"), "is not a resume file");
  }
  SECTION("another version") { require_invalid(with_metadata("format_version", "9"), "format version '9'"); }
  SECTION("no config") { require_invalid(without("config"), "no 'config'"); }
  SECTION("config not JSON") { require_invalid(with_metadata("config", "{lr:"), "'config' is not valid JSON"); }
  SECTION("a number too large for a double") {
    require_invalid(with_metadata("position", R"({"loss_sum":1e400})"), "'position' is not valid JSON");
  }
  SECTION("config field mistyped") {
    nlohmann::json config = nlohmann::json::parse(good.metadata.at("config"));
    config["lr"] = "fast";
    require_invalid(with_metadata("config", config.dump()), "'config.lr' must be a number, got \"fast\"");
  }
  SECTION("unknown optimizer") {
    nlohmann::json config = nlohmann::json::parse(good.metadata.at("config"));
    config["optimizer"] = "lion";
    require_invalid(with_metadata("config", config.dump()), "config.optimizer");
  }
  SECTION("negative count") {
    nlohmann::json position = nlohmann::json::parse(good.metadata.at("position"));
    position["samples"] = -1;
    require_invalid(with_metadata("position", position.dump()),
                    "'position.samples' must be a non-negative integer, got -1");
  }
  SECTION("more correct than samples") {
    nlohmann::json position = nlohmann::json::parse(good.metadata.at("position"));
    position["correct"] = position["samples"].get<std::size_t>() + 1;
    require_invalid(with_metadata("position", position.dump()), "correct exceeds");
  }
  SECTION("history and position disagree") {
    require_invalid(with_metadata("history", "[]"), "the history has 0 epochs");
  }
  SECTION("no fingerprint") { require_invalid(without("train_data"), "no 'train_data'"); }
  SECTION("a stray tensor") {
    io::SafetensorsFile f = good;
    f.tensors["extra"] = f.tensors.at("model.0.bias");
    require_invalid(f, "unexpected tensor 'extra'");
  }
  SECTION("a missing weight") {
    io::SafetensorsFile f = good;
    f.tensors.erase("model.2.weight");
    require_invalid(f, "no tensor '2.weight'");
  }
  SECTION("weights of another architecture") {
    nlohmann::json config = nlohmann::json::parse(good.metadata.at("config"));
    config["hidden"] = {8, 9};
    require_invalid(with_metadata("config", config.dump()), "the model is 2-8-8-2 but the recipe says hidden 8,9");
  }
  SECTION("optimizer state of another dtype") {
    io::SafetensorsFile f = good;
    const std::int32_t step = 6;
    f.tensors["optimizer.step"] = io::make_tensor<std::int32_t>({1}, std::span(&step, 1));
    require_invalid(f, "has dtype I32, expected F32");
  }
}

TEST_CASE("run_training writes only a resume file when stopped and removes it once complete", "[train]") {
  const seatorch::test::ScratchDir dir;
  train::TrainRunOptions options;
  options.data.name = "moons";
  options.tensor = recipe();
  options.out = dir / "straight" / "model.safetensors";
  train::run_training(options);

  options.out = dir / "stopped" / "model.safetensors";
  train::TrainRunCallbacks stop;
  stop.should_stop = stop_every(7);
  const train::TrainRunSummary interrupted = train::run_training(options, stop);
  CHECK(interrupted.interrupted());
  const auto resume_path = dir / "stopped" / "resume.safetensors";
  REQUIRE(interrupted.written == std::vector<std::filesystem::path>{resume_path});
  CHECK_FALSE(std::filesystem::exists(options.out));

  options.resume = resume_path;
  options.tensor.lr = 0.02;
  CHECK_THROWS_WITH(train::run_training(options), Catch::Contains("--lr 0.02 (the run used 0.01)"));
  options.tensor.lr = 0.01;
  const train::TrainRunSummary finished = train::run_training(options);
  CHECK_FALSE(finished.interrupted());
  CHECK(finished.training.history.size() == 3);  // the interrupted run's epochs come from the resume file
  CHECK_FALSE(std::filesystem::exists(resume_path));
  CHECK(file_bytes(options.out) == file_bytes(dir / "straight" / "model.safetensors"));
}

TEST_CASE("an augmented run stopped mid-epoch and resumed ends bit-identical, and its recipe round-trips", "[train]") {
  const data::DataSplit data = test::load_mnist_small();
  train::TensorTrainConfig config;
  config.hidden = {256};  // products large enough to split, so that the worker stays awake
  config.epochs = 2;
  config.batch = 50;
  config.limit = 300;  // 6 steps per epoch
  config.seed = 8;
  augment::parse_augment_list("affine,elastic", config.augment);
  config.augment.ranges.rotate_degrees = 15.0;
  config.augment.elastic_params = {20.0, 3.0};
  const train::TensorTrainOutput straight = train::train_tensor(data, config);

  // On two threads a stop leaves the next batch's images offered to the worker, which may
  // still be transforming some of them while the run returns.
  for (const std::size_t threads : {1, 2}) {
    INFO(threads << " thread(s)");
    const core::ScopedThreads count(threads);
    train::TensorTrainCallbacks callbacks;
    callbacks.should_stop = stop_every(4);  // stops at steps 4 and 8: mid-epoch 1 and mid-epoch 2
    train::TensorTrainConfig run = config;
    std::size_t stops = 0;
    for (;;) {
      const train::TensorTrainOutput out = train::train_tensor(data, run, callbacks);
      if (!out.result.stopped) {
        CHECK(flat_weights(out.model.state_dict()) == flat_weights(straight.model.state_dict()));
        break;
      }
      REQUIRE(++stops < 5);
      run = resumed(config, out);
    }
    CHECK(stops == 2);
  }

  const nlohmann::json json = train::train_config_json(config);
  const train::TensorTrainConfig back = train::train_config_from_json(json, {"r.json", "the recipe", "start again"});
  CHECK(train::train_config_json(back) == json);
  CHECK(back.augment.elastic);
  CHECK(back.augment.ranges.rotate_degrees == 15.0);
  nlohmann::json before_augmentation = json;  // a resume file of an older seatorch
  for (const char* key : {"augment", "rotate", "shift", "scale", "shear", "elastic_alpha", "elastic_sigma"}) {
    before_augmentation.erase(key);
  }
  CHECK_FALSE(
      train::train_config_from_json(before_augmentation, {"r.json", "the recipe", "start again"}).augment.enabled());

  train::ResumeState state;
  state.options.tensor = config;
  train::TrainRunOptions other = state.options;
  augment::parse_augment_list("affine", other.tensor.augment);
  other.tensor.augment.elastic_params.sigma = 5.0;
  CHECK_THROWS_WITH(train::check_resume_matches(state, other, "r.safetensors"),
                    Catch::Contains("--augment \"affine\" (the run used \"affine,elastic\")") &&
                        Catch::Contains("--elastic-sigma 5.0 (the run used 3.0)"));
}
