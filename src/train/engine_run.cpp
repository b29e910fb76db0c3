// run_engine(): a recipe through the tensor or the scalar engine, one result either way.
#include "seatorch/train/engine_run.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/data/split.hpp"
#include "seatorch/model/engine_weights.hpp"
#include "seatorch/train/scalar_trainer.hpp"

#include <utility>

namespace seatorch::train {
namespace {

EngineRun run_tensor_engine(const data::DataSplit& data, TensorTrainConfig config,
                            const std::optional<model::FloatMlp>& init, const std::optional<EngineStart>& start,
                            const EngineCallbacks& callbacks) {
  if (init) config.initial_parameters = model::state_dict_of(*init);
  std::vector<TrainEpoch> history;
  if (start) {
    config.initial_parameters = start->model;
    config.initial_optimizer_state = start->optimizer;
    config.start = start->position;
    history = start->history;
  }
  TensorTrainCallbacks engine_callbacks;
  engine_callbacks.on_step = callbacks.on_step;
  engine_callbacks.should_stop = callbacks.should_stop;
  engine_callbacks.on_epoch = callbacks.on_epoch;
  TensorTrainOutput out = train_tensor(data, config, engine_callbacks);
  EngineRun run{model::float_mlp_of(out.model), std::move(out.result), std::move(out.optimizer_state)};
  run.result.history.insert(run.result.history.begin(), history.begin(), history.end());
  return run;
}

EngineRun run_scalar_engine(data::DataSplit data, const TensorTrainConfig& recipe,
                            const std::optional<model::FloatMlp>& init, const EngineCallbacks& callbacks) {
  // The schedule too: the scalar trainer keeps its rate constant, and `--schedule cosine` was
  // ignored without a word.
  if (recipe.optimizer != OptimizerKind::kSgd || recipe.momentum != 0.0 || recipe.weight_decay != 0.0 ||
      recipe.dropout != 0.0 || recipe.validation != 0.0 || recipe.max_steps != 0 ||
      recipe.schedule.kind != ScheduleKind::kConstant) {
    throw core::option_error("engine",
                             "the scalar engine trains with plain SGD at a constant rate only: drop the optimizer, "
                             "momentum, weight decay, schedule, dropout, validation split and step limit, or use the "
                             "tensor engine");
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
  ScalarTrainResult result = train_scalar(data, config, callbacks.on_epoch);
  std::vector<std::size_t> sizes{data.train.features};
  sizes.insert(sizes.end(), config.hidden.begin(), config.hidden.end());
  sizes.push_back(data.train.classes);
  EngineRun run{model::float_mlp_of_scalar(sizes, result.weights), std::move(result), {}};
  return run;
}

}  // namespace

Engine parse_engine(std::string_view name) {
  if (name == "tensor") return Engine::kTensor;
  if (name == "scalar") return Engine::kScalar;
  throw core::option_error("engine", "unknown engine '{}': use tensor or scalar", core::printable(name));
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

EngineRun run_engine(Engine engine, const data::DataSplit& data, TensorTrainConfig recipe,
                     const std::optional<model::FloatMlp>& init, const std::optional<EngineStart>& start,
                     const EngineCallbacks& callbacks) {
  if (engine == Engine::kTensor) return run_tensor_engine(data, std::move(recipe), init, start, callbacks);
  if (start) throw core::option_error("engine", "only tensor-engine runs can be resumed");
  return run_scalar_engine(data, recipe, init, callbacks);
}

}  // namespace seatorch::train
