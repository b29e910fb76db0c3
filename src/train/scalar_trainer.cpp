// The scalar training loop. Graph memory is reused across samples through truncate().
#include "seatorch/train/scalar_trainer.hpp"

#include "seatorch/core/argmax.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/core/rng.hpp"
#include "seatorch/model/engine_weights.hpp"
#include "seatorch/model/evaluate.hpp"
#include "seatorch/nn/mlp.hpp"
#include "seatorch/scalar/loss.hpp"
#include "seatorch/train/lr_schedule.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <numeric>

namespace seatorch::train {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Sample i's features as leaves of the graph.
std::vector<scalar::Value> input_leaves(scalar::ScalarGraph& graph, const data::Dataset& data, std::size_t i) {
  std::vector<float> x(data.features);  // (features)
  data.copy_features(i, 1, x);
  std::vector<scalar::Value> leaves;
  leaves.reserve(x.size());
  for (float v : x) leaves.push_back(graph.leaf(v));
  return leaves;
}


}  // namespace

ScalarTrainConfig default_scalar_config(std::string_view dataset) {
  ScalarTrainConfig config;
  if (dataset == "xor") {
    config.hidden = {8};
    config.activation = scalar::Activation::kRelu;
    config.epochs = 300;
    config.lr = 0.5;
  } else if (dataset == "moons") {
    config.hidden = {16, 16};
    config.activation = scalar::Activation::kRelu;
    config.epochs = 200;
    config.batch = 0;
    config.lr = 0.5;
  } else {
    config.hidden = {128};
    config.activation = scalar::Activation::kRelu;
    config.epochs = 1;
    config.batch = 32;
    config.lr = 0.1;
  }
  return config;
}

ScalarTrainResult train_scalar(const data::DataSplit& data, const ScalarTrainConfig& config,
                               const EpochCallback& on_epoch) {
  const data::Dataset& train = data.train;
  if (train.size() == 0) throw core::input_error("data set '{}' has no training samples", data.name);
  if (config.epochs == 0) throw core::option_error("epochs", "the number of epochs must be at least 1");
  check_learning_rate(config.lr);
  nn::check_hidden_widths(config.hidden);

  std::vector<std::size_t> sizes{train.features};
  sizes.insert(sizes.end(), config.hidden.begin(), config.hidden.end());
  sizes.push_back(train.classes);

  core::Rng rng(config.seed);
  scalar::ScalarGraph graph;
  const scalar::Mlp model(graph, sizes, config.activation, rng);
  const std::vector<scalar::Value> params = model.parameters();
  const std::size_t param_mark = graph.size();
  if (!config.initial_parameters.empty()) {
    if (config.initial_parameters.size() != params.size()) {
      throw core::input_error("{} initial parameters for a model with {}", config.initial_parameters.size(),
                              params.size());
    }
    for (std::size_t i = 0; i < params.size(); ++i) params[i].set_data(config.initial_parameters[i]);
  }

  const std::size_t batch = config.batch == 0 ? train.size() : std::min(config.batch, train.size());
  std::vector<std::size_t> order(train.size());
  std::iota(order.begin(), order.end(), 0);

  ScalarTrainResult result;
  result.parameters = params.size();
  for (std::size_t epoch = 1; epoch <= config.epochs; ++epoch) {
    const auto start = Clock::now();
    if (config.shuffle && batch < train.size()) rng.shuffle(std::span<std::size_t>(order));
    double loss_sum = 0.0;
    std::size_t correct = 0;
    for (std::size_t begin = 0; begin < train.size(); begin += batch) {
      const std::size_t end = std::min(begin + batch, train.size());
      const double scale = 1.0 / static_cast<double>(end - begin);
      graph.zero_grad();
      for (std::size_t j = begin; j < end; ++j) {
        const std::size_t i = order[j];
        const std::vector<scalar::Value> logits = model(input_leaves(graph, train, i));
        const scalar::Value loss = scalar::cross_entropy(logits, static_cast<std::size_t>(train.y[i]));
        loss_sum += loss.data();
        if (static_cast<std::int32_t>(core::argmax(logits, &scalar::Value::data)) == train.y[i]) ++correct;
        graph.backward(loss * scale);
        result.nodes += graph.size() - param_mark;
        graph.truncate(param_mark);
      }
      scalar::sgd_step(params, config.lr);
      ++result.steps;
    }
    const double epoch_seconds = seconds_since(start);
    result.seconds += epoch_seconds;
    const auto n = static_cast<double>(train.size());
    TrainEpoch report;
    report.epoch = epoch;
    report.loss = loss_sum / n;
    report.train_accuracy = static_cast<double>(correct) / n;
    report.lr = config.lr;
    report.seconds = epoch_seconds;
    report.steps = (train.size() + batch - 1) / batch;
    result.history.push_back(report);
    if (on_epoch) on_epoch(report);
  }
  result.final_loss = result.history.back().loss;
  for (const scalar::Value& p : params) result.weights.push_back(p.data());
  // The final weights through the one float evaluator: the scalar graph would take seconds
  // per thousand samples for the same figures.
  result.train_size = train.size();
  result.samples = train.size() * config.epochs;
  result.us_per_sample = result.seconds / static_cast<double>(result.samples) * 1e6;
  const model::FloatMlp trained = model::float_mlp_of_scalar(sizes, result.weights);
  result.train_accuracy = model::evaluate_float(trained, train).accuracy();
  result.test = model::evaluate_float(trained, data.test);
  spdlog::debug("scalar engine: {} nodes in {:.3f} s of training", result.nodes, result.seconds);
  return result;
}

}  // namespace seatorch::train
