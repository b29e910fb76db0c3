// The tensor training loop: split, initialize, then per step gather -> forward -> loss ->
// backward -> optimizer step, with reports after every step and epoch. With augmentation,
// each step also starts the next batch's images for idle threads to transform
// (augment/augmenter.hpp). Deliberately not here: files, signals, terminal output.
#include "seatorch/train/tensor_trainer.hpp"

#include "batching.hpp"
#include "seatorch/core/argmax.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/core/rng.hpp"
#include "seatorch/model/engine_weights.hpp"
#include "seatorch/model/evaluate.hpp"
#include "seatorch/nn/mlp.hpp"
#include "seatorch/tensor/loss.hpp"
#include "seatorch/tensor/movement.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <span>
#include <utility>

namespace seatorch::train {
namespace {

using Clock = std::chrono::steady_clock;

// Mixed into the seed for the dropout Rng, so dropout masks and the init/shuffle stream
// are independent ("dropout" in ASCII).
constexpr std::uint64_t kDropoutStream = 0x64726f706f7574ULL;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The live model through the one float evaluator (model/evaluate.hpp): no autograd graph,
// no dropout, whatever mode the model is in.
model::Evaluation evaluate(const nn::Mlp& model, const data::Dataset& data, std::size_t first = 0,
                           std::size_t count = model::kAllSamples) {
  return model::evaluate_float(model::float_mlp_of(model), data, first, count);
}

struct Split {
  std::size_t train = 0;       // samples [0, train) of data.train
  std::size_t validation = 0;  // samples [train, train + validation)
};

Split split_sizes(const data::Dataset& train, const TensorTrainConfig& config) {
  if (!(config.validation >= 0.0 && config.validation < 1.0)) {
    throw core::input_error("the validation fraction {} is outside [0, 1)", config.validation);
  }
  const std::size_t used = config.limit == 0 ? train.size() : std::min(config.limit, train.size());
  const auto validation = static_cast<std::size_t>(std::llround(config.validation * static_cast<double>(used)));
  if (used - validation == 0) {
    throw core::input_error("no training samples left (limit {}, validation fraction {}); use more data", used,
                            config.validation);
  }
  return {used - validation, validation};
}

void validate(const data::DataSplit& data, const TensorTrainConfig& config) {
  if (data.train.size() == 0) throw core::input_error("data set '{}' has no training samples", data.name);
  if (config.epochs == 0) throw core::option_error("epochs", "the number of epochs must be at least 1");
  if (config.start.epoch >= config.epochs) {
    throw core::input_error("cannot resume after epoch {} of a {}-epoch run: nothing is left to train",
                            config.start.epoch, config.epochs);
  }
  check_float_learning_rate(config.lr);
  check_schedule(config.schedule, config.lr, config.epochs);
  if (config.augment.enabled()) augment::validate_augment(config.augment);
  nn::check_hidden_widths(config.hidden);
}

OptimizerOptions optimizer_options(const TensorTrainConfig& config) {
  OptimizerOptions o;
  o.kind = config.optimizer;
  o.momentum = config.optimizer == OptimizerKind::kSgd ? config.momentum : 0.0;
  o.nesterov = config.nesterov;
  o.weight_decay = config.weight_decay;
  return o;
}

// The rows whose largest logit is at their label, by the rule every engine predicts with
// (core::argmax); a plain loop over the batch's few logits, not a tensor op and its buffers.
std::size_t count_correct(const tensor::Tensor& logits, const tensor::Tensor& labels) {
  const tensor::Tensor scores = tensor::contiguous(logits);  // (rows, classes)
  const std::size_t classes = scores.shape()[1];
  const std::span<const float> all(scores.data<float>(), scores.numel());
  const std::int32_t* y = labels.data<std::int32_t>();
  std::size_t correct = 0;
  for (std::size_t i = 0; i < scores.shape()[0]; ++i) {
    correct += static_cast<std::int32_t>(core::argmax(all.subspan(i * classes, classes))) == y[i] ? 1 : 0;
  }
  return correct;
}

}  // namespace

TensorTrainConfig default_tensor_config(std::string_view dataset) {
  TensorTrainConfig config;
  if (dataset == "xor") {
    config.hidden = {8};
    config.epochs = 300;
    config.batch = 0;
    config.lr = 0.05;
    config.schedule = {ScheduleKind::kConstant};
  } else if (dataset == "moons") {
    config.hidden = {16, 16};
    config.epochs = 200;
    config.batch = 0;
    config.lr = 0.02;
    config.schedule = {ScheduleKind::kConstant};
  } else if (dataset == "mnist" || dataset == "fashion-mnist") {
    // The best 784-256-128-10 recipe within the demo's 15 s of training (docs/ACCURACY.md):
    // one-cycle Adam over 12 epochs, and for handwriting both augmentations at their default
    // ranges. Clothes are photographed upright and centred: distorting them costs Fashion-MNIST
    // accuracy (85.1 % against 89.7 % on its validation split), so it trains on them as they are.
    config.hidden = {256, 128};
    config.epochs = 12;
    config.batch = 128;
    config.optimizer = OptimizerKind::kAdam;
    config.lr = 2e-3;
    config.schedule = {ScheduleKind::kOneCycle};
    config.augment.affine = dataset == "mnist";
    config.augment.elastic = dataset == "mnist";
  } else {
    config.hidden = {64};
    config.epochs = 20;
    config.batch = 64;
    config.lr = 1e-3;
    config.schedule = {ScheduleKind::kConstant};
  }
  return config;
}

TensorTrainOutput train_tensor(const data::DataSplit& data, const TensorTrainConfig& config,
                               const TensorTrainCallbacks& callbacks) {
  validate(data, config);
  const data::Dataset& train = data.train;
  const Split split = split_sizes(train, config);

  std::vector<std::size_t> sizes{train.features};
  sizes.insert(sizes.end(), config.hidden.begin(), config.hidden.end());
  sizes.push_back(train.classes);
  core::Rng rng(config.seed);
  nn::Mlp model(sizes, config.dropout, rng, config.seed ^ kDropoutStream);
  if (config.initial_parameters) model.load_state_dict(*config.initial_parameters);
  Optimizer optimizer(model.parameters(), optimizer_options(config));
  if (config.initial_optimizer_state) optimizer.load_state(*config.initial_optimizer_state);
  std::vector<std::size_t> order(split.train);  // (train) sample indices in this epoch's order
  std::iota(order.begin(), order.end(), 0);
  // The next batch, when its augmentation has started. The augmenter reads its rows from
  // `order` and writes its images into `started`: both are declared before it, so that if a
  // run stops or throws with a batch under way, the augmenter (which withdraws its images
  // from idle threads) is destroyed first, before the memory those images use.
  std::optional<detail::Batch> started;
  std::optional<augment::Augmenter> augmenter;  // of the training images, when asked for
  if (config.augment.enabled()) augmenter.emplace(config.augment, train, augment::augment_seed(config.seed));

  const std::size_t batch = config.batch == 0 ? split.train : std::min(config.batch, split.train);
  const std::size_t steps_per_epoch = (split.train + batch - 1) / batch;
  std::size_t total_steps = config.epochs * steps_per_epoch;
  if (config.max_steps > 0) total_steps = std::min(total_steps, config.max_steps);

  if (config.start.step_in_epoch >= steps_per_epoch) {
    throw core::input_error("cannot resume at step {} of epoch {}: an epoch has only {} steps",
                            config.start.step_in_epoch, config.start.epoch + 1, steps_per_epoch);
  }

  TensorTrainResult result;
  result.train_size = split.train;
  result.validation_size = split.validation;
  result.parameters = model.parameter_count();
  const auto stop_requested = [&callbacks] { return callbacks.should_stop && callbacks.should_stop(); };
  std::size_t step = 0;
  for (std::size_t epoch = 1; epoch <= config.start.epoch; ++epoch) {  // replay a resumed run's past
    if (config.shuffle) rng.shuffle(std::span<std::size_t>(order));
    model.advance_dropout(split.train);
    step += steps_per_epoch;
  }
  if (step + config.start.step_in_epoch >= total_steps) {
    throw core::option_error("maximum steps", "cannot resume at step {}: the limit of {} steps was already reached",
                             step + config.start.step_in_epoch, config.max_steps);
  }
  std::optional<model::Evaluation> last_test;  // the latest epoch's, when evaluated each epoch
  kernels::ProductLog products;                // the steps' products; the evaluations run outside it
  for (std::size_t epoch = config.start.epoch + 1; epoch <= config.epochs && step < total_steps; ++epoch) {
    const auto start = Clock::now();
    if (config.shuffle) rng.shuffle(std::span<std::size_t>(order));
    model.set_training(true);
    TrainEpoch report;
    report.epoch = epoch;
    double loss_sum = 0.0;
    std::size_t seen = 0;
    std::size_t correct = 0;
    double resumed_seconds = 0.0;  // the interrupted run's share of this epoch
    std::size_t first_row = 0;
    if (epoch == config.start.epoch + 1 && config.start.step_in_epoch > 0) {  // skip the steps already done
      const TrainPosition& p = config.start;
      first_row = p.step_in_epoch * batch;  // all full batches: only an epoch's last batch may be short
      model.advance_dropout(first_row);
      step += p.step_in_epoch;
      report.steps = p.step_in_epoch;
      loss_sum = p.loss_sum;
      seen = p.samples;
      correct = p.correct;
      resumed_seconds = p.seconds;
    }
    for (std::size_t begin = first_row; begin < split.train && step < total_steps; begin += batch) {
      const auto rows = std::span<const std::size_t>(order).subspan(begin, std::min(batch, split.train - begin));
      const kernels::RecordProducts recording(products);
      auto mark = Clock::now();
      auto lap = [&mark](double& phase) {
        const auto now = Clock::now();
        phase += std::chrono::duration<double>(now - mark).count();
        mark = now;
      };
      std::span<const std::size_t> next_rows;
      if (begin + batch < split.train) {
        const std::size_t next = begin + batch;
        next_rows = std::span<const std::size_t>(order).subspan(next, std::min(batch, split.train - next));
      }
      // With augmentation, a step finds its batch in `started` with its images under way
      // (started by the step before), except an epoch's first step, which starts its own.
      if (augmenter && !started) {  // an epoch's first batch (or a resumed run's)
        started = detail::gather_labels(train, rows);
        lap(result.phases.data);
        // Draws the epoch's elastic bank: the augmentation's time.
        augmenter->start(rows, epoch, std::span<float>(started->x.data<float>(), started->x.numel()));
        lap(result.phases.augment);
      }
      detail::Batch b =
          augmenter ? *std::exchange(started, std::nullopt) : detail::gather_batch(train, rows, next_rows);
      if (augmenter) detail::prefetch_rows(train, next_rows);
      lap(result.phases.data);
      if (augmenter) {
        augmenter->finish();
        lap(result.phases.augment);
        // The next batch's images, for the threads to transform while they would wait
        // during this step (core::offer_idle); the next step finishes them.
        if (!next_rows.empty() && step + 1 < total_steps) {
          started = detail::gather_labels(train, next_rows);
          augmenter->start(next_rows, epoch, std::span<float>(started->x.data<float>(), started->x.numel()));
        }
        lap(result.phases.data);
      }
      const tensor::Tensor logits = config.train_forward ? config.train_forward(model, b.x) : model.forward(b.x);
      const tensor::Tensor loss = tensor::cross_entropy(logits, b.y);
      lap(result.phases.forward);
      const double lr = scheduled_lr(config.schedule, config.lr, step, steps_per_epoch, total_steps);
      report.lr = lr;
      // The step begins before the backward, which updates the first layer's weights as it
      // makes their gradient (Optimizer::begin_step); the rest are updated after it.
      optimizer.zero_grad();
      optimizer.begin_step(lr);
      loss.backward();
      lap(result.phases.backward);
      optimizer.finish_step();
      lap(result.phases.optimizer);
      ++step;
      ++report.steps;
      const double batch_loss = loss.item();
      loss_sum += batch_loss * static_cast<double>(rows.size());
      seen += rows.size();
      correct += count_correct(logits, b.y);
      if (callbacks.on_step) {
        callbacks.on_step({step, epoch, report.steps, steps_per_epoch, batch_loss, lr});
      }
      const bool epoch_ends = begin + batch >= split.train || step >= total_steps;
      if (!epoch_ends && stop_requested()) {
        result.stopped = true;
        result.position = {epoch - 1, report.steps, loss_sum, seen, correct, resumed_seconds + seconds_since(start)};
        break;
      }
    }
    const std::size_t trained_here = seen - (epoch == config.start.epoch + 1 ? config.start.samples : 0);
    const double seconds_here = seconds_since(start);
    result.seconds += seconds_here;
    result.samples += trained_here;
    if (result.stopped) break;
    report.seconds = resumed_seconds + seconds_here;
    report.loss = loss_sum / static_cast<double>(seen);
    report.train_accuracy = static_cast<double>(correct) / static_cast<double>(seen);
    if (config.evaluate_each_epoch) {
      const auto eval_start = Clock::now();
      last_test = evaluate(model, data.test);
      report.test_accuracy = last_test->accuracy();
      if (split.validation > 0)
        report.validation_accuracy = evaluate(model, train, split.train, split.validation).accuracy();
      report.eval_seconds = seconds_since(eval_start);
    }
    result.history.push_back(report);
    if (callbacks.on_epoch) callbacks.on_epoch(report);
    if (callbacks.on_checkpoint) callbacks.on_checkpoint(report, TensorTrainState{model, optimizer});
    if (epoch < config.epochs && step < total_steps && stop_requested()) {
      result.stopped = true;
      result.position = {epoch, 0, 0.0, 0, 0, 0.0};
      break;
    }
  }

  result.steps = step;
  result.products = products.records();
  result.final_loss = result.history.empty() ? 0.0 : result.history.back().loss;
  result.us_per_sample = result.samples == 0 ? 0.0 : 1e6 * result.seconds / static_cast<double>(result.samples);
  if (result.stopped) {
    nn::StateDict optimizer_state = optimizer.state();
    return TensorTrainOutput{std::move(model), std::move(result), std::move(optimizer_state)};
  }
  result.train_accuracy = evaluate(model, train, 0, split.train).accuracy();
  // The last epoch's evaluation is of these final weights: the test set is evaluated once.
  result.test = last_test ? *std::move(last_test) : evaluate(model, data.test);
  if (split.validation > 0) {
    result.validation_accuracy = result.history.empty() || !result.history.back().validation_accuracy
                                     ? evaluate(model, train, split.train, split.validation).accuracy()
                                     : *result.history.back().validation_accuracy;
  }
  nn::StateDict optimizer_state = optimizer.state();
  return TensorTrainOutput{std::move(model), std::move(result), std::move(optimizer_state)};
}

}  // namespace seatorch::train
