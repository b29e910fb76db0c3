// The three schedules as closed forms of the step index (no scheduler state to save).
#include "seatorch/train/lr_schedule.hpp"

#include "seatorch/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace seatorch::train {

ScheduleKind parse_schedule(std::string_view name) {
  if (name == "constant") return ScheduleKind::kConstant;
  if (name == "step") return ScheduleKind::kStep;
  if (name == "cosine") return ScheduleKind::kCosine;
  throw core::input_error("unknown schedule '{}': use constant, step or cosine", name);
}

std::string_view schedule_name(ScheduleKind kind) {
  switch (kind) {
    case ScheduleKind::kConstant:
      return "constant";
    case ScheduleKind::kStep:
      return "step";
    case ScheduleKind::kCosine:
      return "cosine";
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
  }
  return base_lr;
}

}  // namespace seatorch::train
