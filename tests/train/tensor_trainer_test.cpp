// The tensor trainer end to end: the cross-engine check (tensor and scalar engines train
// the same model from the same weights on the same 64 samples and must agree), bit-identical
// determinism, moons and XOR to high accuracy, limit/validation/max_steps bookkeeping,
// the callbacks, the training-forward hook, evaluation's confusion matrix, augmentation
// (seeded, of the training images only), and the log of the steps' matrix products.
#include "../data/data_test_util.hpp"
#include "seatorch/bench/train_bench.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/core/rng.hpp"
#include "seatorch/data/registry.hpp"
#include "seatorch/model/engine_weights.hpp"
#include "seatorch/model/evaluate.hpp"
#include "seatorch/tensor/elementwise.hpp"
#include "seatorch/train/scalar_trainer.hpp"
#include "seatorch/train/tensor_trainer.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <numeric>

using namespace seatorch;

namespace {

// The engines compute in double (scalar) and float (tensor); over a few SGD steps on a
// small model their weights must stay this close.
constexpr double kEngineTolerance = 1e-4;

// n samples of `features` Gaussian values around one of `classes` random centres.
data::DataSplit blobs(std::size_t n, std::size_t features, std::size_t classes, std::uint64_t seed) {
  core::Rng rng(seed);
  std::vector<float> centres(classes * features);  // (classes, features)
  for (float& c : centres) c = static_cast<float>(rng.normal());
  auto make = [&](std::size_t count) {
    data::Dataset d;
    d.features = features;
    d.classes = classes;
    for (std::size_t i = 0; i < count; ++i) {
      const auto label = static_cast<std::size_t>(rng.below(classes));
      for (std::size_t f = 0; f < features; ++f) {
        d.x.push_back(centres[label * features + f] + static_cast<float>(0.5 * rng.normal()));
      }
      d.y.push_back(static_cast<std::int32_t>(label));
    }
    return d;
  };
  data::Dataset train = make(n);
  data::Dataset test = make(n);
  return data::DataSplit{"blobs", std::move(train), std::move(test)};
}

std::vector<float> flat_weights(const nn::Mlp& model) {
  std::vector<float> flat;
  for (const nn::NamedBuffer& b : model.state_dict()) flat.insert(flat.end(), b.data.begin(), b.data.end());
  return flat;
}

}  // namespace

TEST_CASE("tensor and scalar engines train the same model to the same weights", "[train]") {
  const data::DataSplit data = blobs(64, 12, 3, 7);
  const std::vector<std::size_t> hidden{10, 6};

  // The tensor engine's seeded initial weights, given to both engines explicitly.
  core::Rng rng(3);
  const std::vector<std::size_t> sizes{12, 10, 6, 3};
  const nn::Mlp initial(sizes, 0.0, rng);
  const nn::StateDict start = initial.state_dict();
  std::vector<double> start_flat;
  for (float v : flat_weights(initial)) start_flat.push_back(v);

  train::ScalarTrainConfig scalar_config;
  scalar_config.hidden = hidden;
  scalar_config.activation = scalar::Activation::kRelu;
  scalar_config.epochs = 3;
  scalar_config.batch = 16;
  scalar_config.lr = 0.2;
  scalar_config.shuffle = false;
  scalar_config.initial_parameters = start_flat;
  const train::ScalarTrainResult scalar_result = train::train_scalar(data, scalar_config);

  train::TensorTrainConfig tensor_config;
  tensor_config.hidden = hidden;
  tensor_config.epochs = 3;
  tensor_config.batch = 16;
  tensor_config.optimizer = train::OptimizerKind::kSgd;
  tensor_config.momentum = 0.0;
  tensor_config.lr = 0.2;
  tensor_config.schedule = {train::ScheduleKind::kConstant};
  tensor_config.shuffle = false;
  tensor_config.initial_parameters = start;
  const train::TensorTrainOutput tensor_out = train::train_tensor(data, tensor_config);

  const std::vector<float> trained = flat_weights(tensor_out.model);
  REQUIRE(trained.size() == scalar_result.weights.size());
  double moved = 0.0;
  for (std::size_t i = 0; i < trained.size(); ++i) {
    INFO("parameter " << i << ": tensor " << trained[i] << ", scalar " << scalar_result.weights[i]);
    CHECK(trained[i] == Approx(scalar_result.weights[i]).margin(kEngineTolerance));
    moved = std::max(moved, std::abs(scalar_result.weights[i] - start_flat[i]));
  }
  CHECK(moved > 100 * kEngineTolerance);  // training really changed the weights
  CHECK(tensor_out.result.steps == scalar_result.steps);
  CHECK(tensor_out.result.history.back().loss == Approx(scalar_result.final_loss).margin(kEngineTolerance));
}

TEST_CASE("the same seed and configuration give bit-identical weights", "[train]") {
  const data::DataSplit data = blobs(200, 8, 4, 11);
  train::TensorTrainConfig config;
  config.hidden = {16, 16};
  config.epochs = 3;
  config.batch = 32;
  config.dropout = 0.2;
  config.optimizer = train::OptimizerKind::kAdamW;
  config.weight_decay = 0.01;
  config.lr = 0.01;
  config.seed = 5;
  const train::TensorTrainOutput a = train::train_tensor(data, config);
  const train::TensorTrainOutput b = train::train_tensor(data, config);
  CHECK(flat_weights(a.model) == flat_weights(b.model));
  CHECK(a.result.history.back().loss == b.result.history.back().loss);
  config.seed = 6;
  const train::TensorTrainOutput c = train::train_tensor(data, config);
  CHECK(flat_weights(a.model) != flat_weights(c.model));
}

TEST_CASE("a run resumed from an epoch checkpoint ends with the uninterrupted run's weights", "[train]") {
  const data::DataSplit data = blobs(120, 8, 3, 17);
  train::TensorTrainConfig config;
  config.hidden = {12, 12};
  config.epochs = 4;
  config.batch = 32;
  config.dropout = 0.3;
  config.lr = 0.01;
  config.seed = 2;
  nn::StateDict saved_model, saved_optimizer;
  train::TensorTrainCallbacks callbacks;
  callbacks.on_checkpoint = [&](const train::TrainEpoch& r, const train::TensorTrainState& state) {
    if (r.epoch != 2) return;
    saved_model = state.model.state_dict();
    saved_optimizer = state.optimizer.state();
  };
  const train::TensorTrainOutput straight = train::train_tensor(data, config, callbacks);
  REQUIRE_FALSE(saved_model.empty());

  config.start.epoch = 2;
  config.initial_parameters = saved_model;
  config.initial_optimizer_state = saved_optimizer;
  const train::TensorTrainOutput resumed = train::train_tensor(data, config);
  CHECK(flat_weights(resumed.model) == flat_weights(straight.model));
  CHECK(resumed.result.steps == straight.result.steps);
  REQUIRE(resumed.result.history.size() == 2);
  CHECK(resumed.result.history[0].epoch == 3);
  CHECK(resumed.result.history[1].loss == straight.result.history[3].loss);

  config.start.epoch = 4;
  CHECK_THROWS_AS(train::train_tensor(data, config), core::InputError);
}

TEST_CASE("moons and XOR reach high accuracy with their default recipes", "[train]") {
  const train::TensorTrainOutput moons =
      train::train_tensor(data::load_dataset("moons"), train::default_tensor_config("moons"));
  INFO("moons: train " << moons.result.train_accuracy << ", test " << moons.result.test.accuracy());
  CHECK(moons.result.train_accuracy >= 0.97);
  CHECK(moons.result.test.accuracy() >= 0.95);
  for (std::uint64_t seed : {0, 1, 2, 3, 4}) {
    train::TensorTrainConfig config = train::default_tensor_config("xor");
    config.seed = seed;
    const train::TensorTrainOutput xor_out = train::train_tensor(data::load_dataset("xor"), config);
    INFO("xor seed " << seed << ": loss " << xor_out.result.final_loss);
    CHECK(xor_out.result.train_accuracy == 1.0);
  }
}

TEST_CASE("limit validation split max_steps and callbacks are honoured", "[train]") {
  const data::DataSplit data = blobs(150, 6, 3, 13);
  train::TensorTrainConfig config;
  config.hidden = {8};
  config.epochs = 4;
  config.batch = 16;
  config.limit = 100;
  config.validation = 0.2;
  config.max_steps = 12;  // 80 training samples = 5 steps per epoch: stops in epoch 3
  std::vector<std::size_t> steps;
  std::vector<std::size_t> epochs;
  train::TensorTrainCallbacks callbacks;
  callbacks.on_step = [&](const train::TensorStepReport& r) {
    steps.push_back(r.step);
    CHECK(r.steps_per_epoch == 5);
    CHECK(r.lr > 0.0);
  };
  callbacks.on_epoch = [&](const train::TrainEpoch& r) { epochs.push_back(r.epoch); };
  const train::TensorTrainOutput out = train::train_tensor(data, config, callbacks);
  CHECK(out.result.train_size == 80);
  CHECK(out.result.validation_size == 20);
  CHECK(out.result.steps == 12);
  CHECK(out.result.samples == 2 * 80 + 2 * 16);
  std::vector<std::size_t> expected_steps(12);
  std::iota(expected_steps.begin(), expected_steps.end(), 1);
  CHECK(steps == expected_steps);
  CHECK(epochs == std::vector<std::size_t>{1, 2, 3});
  REQUIRE(out.result.history.size() == 3);
  CHECK(out.result.history[2].steps == 2);
  CHECK(out.result.history[0].validation_accuracy.has_value());
  CHECK(out.result.history[0].test_accuracy.has_value());
  CHECK(out.result.validation_accuracy.has_value());
  CHECK(seatorch::nn::find_buffer(out.optimizer_state, "step")->data[0] == 12.0f);

  config.validation = 1.0;
  CHECK_THROWS_AS(train::train_tensor(data, config), core::InputError);
  config.validation = 0.0;
  config.epochs = 0;
  CHECK_THROWS_AS(train::train_tensor(data, config), core::InputError);
}

TEST_CASE("train_forward replaces the forward pass of the training steps only", "[train]") {
  const data::DataSplit data = blobs(200, 8, 4, 12);
  train::TensorTrainConfig config;
  config.hidden = {16};
  config.epochs = 2;
  config.batch = 32;
  config.lr = 0.01;
  const train::TensorTrainOutput plain = train::train_tensor(data, config);
  // The model's own forward through the hook: the same run, bit for bit.
  std::size_t calls = 0;
  config.train_forward = [&](nn::Mlp& model, const tensor::Tensor& x) {
    ++calls;
    return model.forward(x);
  };
  const train::TensorTrainOutput hooked = train::train_tensor(data, config);
  CHECK(calls == 2 * 7);  // 2 epochs of ceil(200 / 32) steps; evaluations do not call it
  CHECK(flat_weights(hooked.model) == flat_weights(plain.model));
  // A forward whose logits do not depend on the weights: no gradient, so Adam never moves them.
  config.train_forward = [](nn::Mlp& model, const tensor::Tensor& x) { return model.forward(x) * 0.0f; };
  const train::TensorTrainOutput frozen = train::train_tensor(data, config);
  core::Rng init(config.seed);  // the trainer's initial weights come first from Rng(seed)
  const std::vector<std::size_t> sizes{8, 16, 4};
  CHECK(flat_weights(frozen.model) == flat_weights(nn::Mlp(sizes, 0.0, init)));
}

TEST_CASE("the result logs every product of the training steps once and none of the evaluations", "[train]") {
  const data::DataSplit data = blobs(200, 8, 4, 12);
  train::TensorTrainConfig config;
  config.hidden = {16, 12};
  config.epochs = 2;
  config.batch = 32;
  config.evaluate_each_epoch = true;  // evaluations run forward products outside the steps
  const train::TensorTrainOutput out = train::train_tensor(data, config);
  const std::vector<kernels::ProductRecord>& products = out.result.products;
  double flops = 0.0;
  std::size_t calls = 0;
  for (const kernels::ProductRecord& p : products) {
    flops += p.flops;
    calls += p.calls;
    CHECK(p.seconds > 0.0);
  }
  // The products counted by hand (bench::mlp_product_flops): per layer the forward and the
  // weight gradient, and the input gradient of every layer but the first: 8 a step.
  CHECK(flops == bench::mlp_product_flops({8, 16, 12, 4}, out.result.samples));
  CHECK(out.result.samples == 2 * 200);
  CHECK(calls == 8 * out.result.steps);
  CHECK(out.result.steps == 2 * 7);  // ceil(200 / 32) steps an epoch
  // Full batches of 32 and the last one of 8: each product in two shapes.
  CHECK(products.size() == 16);
}

TEST_CASE("an epoch's running training accuracy is the evaluator's when the weights do not move", "[train]") {
  const data::DataSplit data = blobs(300, 8, 5, 21);
  train::TensorTrainConfig config;
  config.hidden = {16};
  config.epochs = 1;
  config.batch = 32;  // the last batch is short
  config.lr = 1e-2;
  // Half-trained weights, so that the predictions spread over every class.
  config.initial_parameters = train::train_tensor(data, config).model.state_dict();
  // A rate of 1e-30 moves no weight of magnitude above 1e-20 (and no logit) by a float: every
  // step predicts with those weights, so the running tally of its predictions must be what
  // the float evaluator says of the final weights on the same samples.
  config.optimizer = train::OptimizerKind::kSgd;
  config.momentum = 0.0;
  config.lr = 1e-30;
  const train::TensorTrainOutput out = train::train_tensor(data, config);
  REQUIRE(out.result.history.size() == 1);
  const double running = out.result.history[0].train_accuracy;
  CHECK(running > 0.5);
  CHECK(running < 1.0);
  CHECK(running == out.result.train_accuracy);
}

TEST_CASE("augmented training is seeded, changes only the training images, and never the test set", "[train]") {
  const data::DataSplit data = test::load_mnist_small();
  train::TensorTrainConfig config;
  config.hidden = {16};
  config.epochs = 2;
  config.batch = 64;
  config.limit = 512;
  config.validation = 0.25;
  config.seed = 3;
  augment::parse_augment_list("affine,elastic", config.augment);
  const train::TensorTrainOutput a = train::train_tensor(data, config);
  const train::TensorTrainOutput b = train::train_tensor(data, config);
  CHECK(flat_weights(a.model) == flat_weights(b.model));
  CHECK(a.result.phases.augment > 0.0);

  train::TensorTrainConfig plain = config;
  plain.augment = {};
  const train::TensorTrainOutput c = train::train_tensor(data, plain);
  CHECK(flat_weights(a.model) != flat_weights(c.model));  // the training images did change
  // The test and validation numbers are those of the unaugmented images (the float evaluator
  // on the data set as loaded), for the augmented run's final weights.
  const model::FloatMlp trained = model::float_mlp_of(a.model);
  CHECK(a.result.test.accuracy() == model::evaluate_float(trained, data.test).accuracy());
  CHECK(*a.result.validation_accuracy == model::evaluate_float(trained, data.train, 384, 128).accuracy());

  augment::parse_augment_list("affine", config.augment);
  CHECK_THROWS_AS(train::train_tensor(data::load_dataset("moons"), config), core::InputError);
}
