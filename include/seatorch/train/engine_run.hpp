// The two engines behind one call: the run's recipe trains through the tensor engine
// (tensor_trainer.hpp) or the scalar engine (scalar_trainer.hpp), and both come back as the
// training stage's one result (train_result.hpp) with the float model the weights became.
//
// The scalar engine trains the same MLP through the scalar Value graph with plain SGD
// (slowly: that is its point), so a recipe that asks for more is refused here. Deliberately
// not here: files of any kind (train_run.hpp writes them).
#pragma once

#include "seatorch/data/dataset.hpp"
#include "seatorch/model/float_mlp.hpp"
#include "seatorch/nn/state_dict.hpp"
#include "seatorch/train/tensor_trainer.hpp"
#include "seatorch/train/train_result.hpp"

#include <functional>
#include <optional>
#include <string_view>

namespace seatorch::train {

enum class Engine : std::uint8_t { kTensor, kScalar };
Engine parse_engine(std::string_view name);
std::string_view engine_name(Engine engine);

// The data set's recipe for the engine (the CLI's defaults before flags override them).
TensorTrainConfig default_train_config(std::string_view dataset, Engine engine);

struct EngineCallbacks {
  std::function<void(const TensorStepReport&)> on_step;  // tensor engine only
  std::function<void(const TrainEpoch&)> on_epoch;
  std::function<bool()> should_stop;  // tensor engine only: stop at this step boundary
};

// Where a resumed tensor-engine run continues from (resume.hpp reads it from the file).
struct EngineStart {
  nn::StateDict model;
  nn::StateDict optimizer;
  TrainPosition position;
  std::vector<TrainEpoch> history;  // the epochs finished before the interruption
};

struct EngineRun {
  model::FloatMlp model;          // the final weights (or the weights at the stop)
  TrainResult result;             // history: every epoch of the run, a resumed one's earlier ones first
  nn::StateDict optimizer_state;  // tensor engine: for the resume file
};

// Trains `recipe` on `data` with `engine`, from `init`'s weights or from `start` (tensor
// engine only) when given, else from the seeded initialization.
EngineRun run_engine(Engine engine, const data::DataSplit& data, TensorTrainConfig recipe,
                     const std::optional<model::FloatMlp>& init, const std::optional<EngineStart>& start,
                     const EngineCallbacks& callbacks);

}  // namespace seatorch::train
