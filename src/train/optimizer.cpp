// SGD, Adam and AdamW: their coefficients in PyTorch's float operation order (the loops are
// kernels/optimizer_update.hpp), the thread split, and their state as named buffers.
#include "seatorch/train/optimizer.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/kernels/optimizer_update.hpp"
#include "seatorch/train/lr_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace seatorch::train {
namespace {

constexpr std::string_view kMomentum = "momentum_buffer";
constexpr std::string_view kExpAvg = "exp_avg";
constexpr std::string_view kExpAvgSq = "exp_avg_sq";
constexpr std::string_view kStep = "step";

// Each update is elementwise, so threads split a parameter's elements, none for fewer than
// kUpdatesPerThread (a bias, a 10-wide layer), which stay inline. A weight splits between
// whole rows, as its gradient's products do (nn::Linear holds Wᵀ, whose gradient Xᵀ·dY
// kernels::matmul and sparse_matmul_tn split by rows), so each thread usually updates the
// rows its own core computed. Blocks of Wᵀ's columns instead, as the forward reads it, took
// the default model's optimizer twice as long on two threads (DECISIONS 84). A weight held in
// panels splits between whole panels, as its forward and gradient do (DECISIONS 92).
std::size_t update_grain(const nn::Parameter& param) {
  const tensor::Tensor& t = param.tensor;
  if (param.layout == tensor::WeightLayout::kInOutPanels) return t.shape()[1] * t.shape()[2];
  return t.rank() == 2 ? t.shape()[1] : 16;
}
constexpr std::size_t kUpdatesPerThread = std::size_t{1} << 14;

// One parameter's update `loop` over all its elements, split across threads as above.
template <class Update>
void update_split(const nn::Parameter& param, const Update& u, void (*loop)(const Update&, std::size_t, std::size_t)) {
  core::parallel_ranges(param.tensor.numel(), update_grain(param), kUpdatesPerThread,
                        [&u, loop](std::size_t begin, std::size_t end) { loop(u, begin, end); });
}

bool is_adam(OptimizerKind kind) { return kind != OptimizerKind::kSgd; }

void validate(const OptimizerOptions& o) {
  // Written so that NaN fails them too: a NaN momentum would train to a model of NaNs.
  if (!(o.momentum >= 0.0 && std::isfinite(o.momentum))) {
    throw core::option_error("momentum", "the momentum must be a finite number >= 0, got {}", o.momentum);
  }
  if (!(o.weight_decay >= 0.0 && std::isfinite(o.weight_decay))) {
    throw core::option_error("weight decay", "the weight decay must be a finite number >= 0, got {}", o.weight_decay);
  }
  if (o.nesterov && (o.momentum <= 0.0 || o.dampening != 0.0)) {
    throw core::option_error("momentum", "Nesterov momentum needs a momentum > 0 and no dampening");
  }
  if (!(o.beta1 >= 0.0 && o.beta1 < 1.0) || !(o.beta2 >= 0.0 && o.beta2 < 1.0)) {
    throw core::input_error("Adam betas must be in [0, 1) (got {} and {})", o.beta1, o.beta2);
  }
  if (!(o.eps >= 0.0)) throw core::input_error("Adam eps must be >= 0 (got {})", o.eps);
}

std::string slot_name(const nn::Parameter& p, std::string_view what) { return fmt::format("{}.{}", p.name, what); }

}  // namespace

OptimizerKind parse_optimizer(std::string_view name) {
  if (name == "sgd") return OptimizerKind::kSgd;
  if (name == "adam") return OptimizerKind::kAdam;
  if (name == "adamw") return OptimizerKind::kAdamW;
  throw core::input_error("unknown optimizer '{}': use sgd, adam or adamw", name);
}

std::string_view optimizer_name(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::kSgd:
      return "sgd";
    case OptimizerKind::kAdam:
      return "adam";
    case OptimizerKind::kAdamW:
      return "adamw";
  }
  return "?";
}

Optimizer::Optimizer(std::vector<nn::Parameter> parameters, OptimizerOptions options)
    : parameters_(std::move(parameters)),
      slots_(parameters_.size()),
      sgd_(parameters_.size()),
      adam_(parameters_.size()),
      blocks_(parameters_.size()),
      options_(options) {
  validate(options_);
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const tensor::Tensor& t = parameters_[i].tensor;
    if (!t.is_leaf() || !t.requires_grad() || !t.is_contiguous()) {
      throw core::input_error("optimizer parameter '{}' must be a contiguous leaf that requires grad",
                              parameters_[i].name);
    }
    const bool momentum = options_.kind == OptimizerKind::kSgd && options_.momentum != 0.0;
    if (momentum || is_adam(options_.kind)) slots_[i].first = tensor::Tensor::zeros(t.shape());
    if (is_adam(options_.kind)) slots_[i].second = tensor::Tensor::zeros(t.shape());
    blocks_[i] =
        is_adam(options_.kind) ? kernels::BlockUpdate{nullptr, &adam_[i]} : kernels::BlockUpdate{&sgd_[i], nullptr};
  }
}

Optimizer::~Optimizer() {
  for (const nn::Parameter& param : parameters_) param.tensor.update_in_backward(nullptr);
}

void Optimizer::zero_grad() {
  for (const nn::Parameter& p : parameters_) p.tensor.zero_grad();
}

void Optimizer::step(double lr) {
  prepare(lr);
  finish_step();
}

void Optimizer::begin_step(double lr) {
  prepare(lr);
  for (std::size_t i = 0; i < parameters_.size(); ++i) parameters_[i].tensor.update_in_backward(&blocks_[i]);
}

void Optimizer::finish_step() {
  const bool adam = is_adam(options_.kind);
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const nn::Parameter& param = parameters_[i];
    const bool updated = param.tensor.updated_in_backward();
    param.tensor.update_in_backward(nullptr);
    if (!updated) {
      if (!param.tensor.grad().defined()) continue;
      const float* g = param.tensor.grad().data<float>();
      if (adam) {
        adam_[i].g = g;
        update_split(param, adam_[i], kernels::adam_update);
      } else {
        sgd_[i].g = g;
        update_split(param, sgd_[i], kernels::sgd_update);
      }
    }
    if (!adam) slots_[i].started = slots_[i].started || sgd_[i].mu != 0.0f;
  }
}

void Optimizer::prepare(double lr) {
  if (!(lr >= 0.0 && lr <= kLargestFloatRate)) {
    throw core::input_error("learning rate must be in [0, {}] (got {})", static_cast<float>(kLargestFloatRate), lr);
  }
  ++steps_;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    if (is_adam(options_.kind)) {
      prepare_adam(i, lr);
    } else {
      prepare_sgd(i, static_cast<float>(lr));
    }
  }
}

// The coefficients in float, as PyTorch has them; the loops are kernels::sgd_update and
// kernels::adam_update.
void Optimizer::prepare_sgd(std::size_t i, float lr) {
  const Slot& slot = slots_[i];
  kernels::SgdUpdate& u = sgd_[i];
  u.p = parameters_[i].tensor.data<float>();
  u.g = nullptr;
  u.b = slot.first.defined() ? slot.first.data<float>() : nullptr;
  u.wd = static_cast<float>(options_.weight_decay);
  u.mu = static_cast<float>(options_.momentum);
  u.keep = static_cast<float>(1.0 - options_.dampening);
  u.neg_lr = -lr;
  u.first = !slot.started;
  u.nesterov = options_.nesterov;
}

void Optimizer::prepare_adam(std::size_t i, double lr) {
  const Slot& slot = slots_[i];
  kernels::AdamUpdate& u = adam_[i];
  u.p = parameters_[i].tensor.data<float>();
  u.g = nullptr;
  u.m = slot.first.data<float>();
  u.v = slot.second.data<float>();
  u.wd = static_cast<float>(options_.weight_decay);
  u.decoupled = options_.kind == OptimizerKind::kAdamW && u.wd != 0.0f;
  u.l2 = options_.kind == OptimizerKind::kAdam && u.wd != 0.0f;
  u.shrink = static_cast<float>(1.0 - lr * options_.weight_decay);
  u.b1 = static_cast<float>(options_.beta1);
  u.b2 = static_cast<float>(options_.beta2);
  u.one_minus_b1 = static_cast<float>(1.0 - options_.beta1);
  u.one_minus_b2 = static_cast<float>(1.0 - options_.beta2);
  // The bias corrections are Python floats (double) in PyTorch, converted at use.
  const auto t = static_cast<double>(steps_);
  const double correction1 = 1.0 - std::pow(options_.beta1, t);
  u.correction2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(options_.beta2, t)));
  u.neg_step_size = static_cast<float>(-(lr / correction1));
  u.eps = static_cast<float>(options_.eps);
}

nn::StateDict Optimizer::state() const {
  nn::StateDict state;
  state.push_back({std::string(kStep), {1}, {static_cast<float>(steps_)}});
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const nn::Parameter& p = parameters_[i];
    // Each buffer in the parameter's state-dict layout, as PyTorch's optimizer holds it.
    if (is_adam(options_.kind)) {
      state.push_back(nn::to_buffer(slot_name(p, kExpAvg), slots_[i].first, p.layout));
      state.push_back(nn::to_buffer(slot_name(p, kExpAvgSq), slots_[i].second, p.layout));
    } else if (slots_[i].started) {  // PyTorch too has no buffer before the first step
      state.push_back(nn::to_buffer(slot_name(p, kMomentum), slots_[i].first, p.layout));
    }
  }
  return state;
}

void Optimizer::load_state(const nn::StateDict& state) {
  const std::string owner = fmt::format("loading {} optimizer state", optimizer_name(options_.kind));
  std::vector<std::string> names{std::string(kStep)};
  for (const nn::Parameter& p : parameters_) {
    for (std::string_view what : {kMomentum, kExpAvg, kExpAvgSq}) names.push_back(slot_name(p, what));
  }
  nn::reject_unexpected(state, names, owner);
  const nn::NamedBuffer* step = nn::find_buffer(state, kStep);
  if (step == nullptr || step->data.size() != 1 || !(step->data[0] >= 0.0f)) {
    throw core::input_error("{}: 'step' is missing or not one non-negative value", owner);
  }
  steps_ = static_cast<std::uint64_t>(step->data[0]);
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    const nn::Parameter& p = parameters_[i];
    auto load = [&](std::string_view what, const tensor::Tensor& dst, bool required) {
      const nn::NamedBuffer* b = nn::find_buffer(state, slot_name(p, what));
      if (b == nullptr) {
        if (required) throw core::input_error("{}: '{}' is missing", owner, slot_name(p, what));
        return false;
      }
      nn::copy_into(*b, dst, owner, p.layout);
      return true;
    };
    if (is_adam(options_.kind)) {
      load(kExpAvg, slots_[i].first, true);
      load(kExpAvgSq, slots_[i].second, true);
    } else if (options_.momentum != 0.0) {
      slots_[i].started = load(kMomentum, slots_[i].first, false);
    }
  }
}

}  // namespace seatorch::train
