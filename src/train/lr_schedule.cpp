// The four schedules as closed forms of the step index (no scheduler state to save).
#include "seatorch/train/lr_schedule.hpp"

#include "seatorch/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace seatorch::train {
namespace {

// OneCycleLR's defaults (torch.optim.lr_scheduler, 1.13).
constexpr double kOneCycleWarmup = 0.3;    // pct_start
constexpr double kOneCycleDiv = 25.0;      // div_factor: the first rate is lr / 25
constexpr double kOneCycleFinalDiv = 1e4;  // final_div_factor: the last is lr / 25 / 1e4

// PyTorch's _annealing_cos: from `start` at pct 0 to `end` at pct 1.
double cosine_between(double start, double end, double pct) {
  return end + (start - end) / 2.0 * (std::cos(std::numbers::pi * pct) + 1.0);
}

double one_cycle(double peak, std::size_t step, std::size_t total_steps) {
  const double initial = peak / kOneCycleDiv;
  const double last = initial / kOneCycleFinalDiv;
  const double t = static_cast<double>(step);
  const double warm_end = kOneCycleWarmup * static_cast<double>(total_steps) - 1.0;
  const double run_end = static_cast<double>(total_steps) - 1.0;
  if (t <= warm_end) return cosine_between(initial, peak, warm_end > 0.0 ? t / warm_end : 1.0);
  const double span = run_end - warm_end;
  return cosine_between(peak, last, span > 0.0 ? std::min(1.0, (t - warm_end) / span) : 1.0);
}

}  // namespace

void check_learning_rate(double lr) {
  if (!(lr > 0.0 && std::isfinite(lr))) {
    throw core::option_error("learning rate", "the learning rate must be positive and finite, got {}", lr);
  }
}

void check_float_learning_rate(double lr) {
  check_learning_rate(lr);
  if (lr > kLargestFloatRate) {
    throw core::option_error(
        "learning rate", "the learning rate must be at most {} (float's largest value) for the tensor engine, got {}",
        static_cast<float>(kLargestFloatRate), lr);
  }
}

void check_schedule(const LrSchedule& schedule, double lr, std::size_t epochs) {
  if (schedule.kind != ScheduleKind::kStep) return;
  if (schedule.step_size == 0) {
    throw core::option_error("step size", "the step schedule's step size must be at least 1 epoch");
  }
  if (!(schedule.gamma > 0.0 && std::isfinite(schedule.gamma))) {
    throw core::option_error("decay factor", "the step schedule's decay factor must be positive and finite, got {}",
                             schedule.gamma);
  }
  // The last epoch's rate, as the run will compute it (one step an epoch is enough here).
  const std::size_t last_epoch = epochs == 0 ? 0 : epochs - 1;
  const double last = scheduled_lr(schedule, lr, last_epoch, 1, epochs);
  const std::size_t decays = last_epoch / schedule.step_size;
  if (!(last <= kLargestFloatRate)) {
    throw core::option_error("decay factor",
                             "the step schedule's learning rate would grow past float's largest value by the last "
                             "epoch ({} x {}^{}); use a decay factor that keeps it in range (at most 1 decays it)",
                             lr, schedule.gamma, decays);
  }
}

ScheduleKind parse_schedule(std::string_view name) {
  if (name == "constant") return ScheduleKind::kConstant;
  if (name == "step") return ScheduleKind::kStep;
  if (name == "cosine") return ScheduleKind::kCosine;
  if (name == "onecycle") return ScheduleKind::kOneCycle;
  throw core::input_error("unknown schedule '{}': use constant, step, cosine or onecycle", name);
}

std::string_view schedule_name(ScheduleKind kind) {
  switch (kind) {
    case ScheduleKind::kConstant:
      return "constant";
    case ScheduleKind::kStep:
      return "step";
    case ScheduleKind::kCosine:
      return "cosine";
    case ScheduleKind::kOneCycle:
      return "onecycle";
  }
  return "?";
}

double scheduled_lr(const LrSchedule& schedule, double base_lr, std::size_t step, std::size_t steps_per_epoch,
                    std::size_t total_steps) {
  switch (schedule.kind) {
    case ScheduleKind::kConstant:
      return base_lr;
    case ScheduleKind::kStep: {
      if (schedule.step_size == 0) throw core::input_error("the step schedule's step size must be at least 1 epoch");
      const std::size_t epoch = step / std::max<std::size_t>(steps_per_epoch, 1);
      return base_lr * std::pow(schedule.gamma, static_cast<double>(epoch / schedule.step_size));
    }
    case ScheduleKind::kCosine: {
      const double t = static_cast<double>(std::min(step, total_steps));
      const double T = static_cast<double>(std::max<std::size_t>(total_steps, 1));
      return base_lr * 0.5 * (1.0 + std::cos(std::numbers::pi * t / T));
    }
    case ScheduleKind::kOneCycle:
      return one_cycle(base_lr, step, total_steps);
  }
  return base_lr;
}

}  // namespace seatorch::train
