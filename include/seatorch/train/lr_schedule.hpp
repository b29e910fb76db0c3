// Learning-rate schedules: constant, step decay, cosine annealing and one-cycle.
//
//   constant: lr
//   step:     lr * gamma^floor(epoch / step_size)      (PyTorch StepLR stepped per epoch)
//   cosine:   lr * (1 + cos(pi * t / T)) / 2            (CosineAnnealingLR to 0, per step)
//   onecycle: PyTorch's OneCycleLR with its defaults, lr as the peak: cosine warm-up from
//             lr / 25 to lr over the first 30 % of the steps, then cosine annealing to
//             lr / 25 / 1e4 at the last step (its phase ends at 0.3 T - 1 and T - 1)
// where t is the 0-based index of the optimizer step and T the run's total steps, so cosine's
// first step uses the full rate and the rate reaches 0 at the end of the run.
// Deliberately not here: restarts, and one-cycle's momentum cycling (Adam's beta1 stays).
#pragma once

#include <cstddef>
#include <limits>
#include <string_view>

namespace seatorch::train {

enum class ScheduleKind { kConstant, kStep, kCosine, kOneCycle };

// "constant", "step", "cosine", "onecycle"; InputError otherwise.
ScheduleKind parse_schedule(std::string_view name);
std::string_view schedule_name(ScheduleKind kind);

struct LrSchedule {
  ScheduleKind kind = ScheduleKind::kConstant;
  std::size_t step_size = 1;  // kStep: epochs between decays
  double gamma = 0.1;         // kStep: the factor applied at each decay
};

// The largest learning rate the tensor engine's optimizers can apply: they apply it as a
// float, where a larger one is infinite and turns every weight into NaN.
inline constexpr double kLargestFloatRate = std::numeric_limits<float>::max();

// Throws OptionError ("learning rate") unless `lr`, the base rate a run starts from (and a
// schedule scales), is positive and finite: both engines' trainers check it so.
void check_learning_rate(double lr);
// The same, and at most kLargestFloatRate.
void check_float_learning_rate(double lr);

// Throws OptionError ("decay factor", "step size") unless a step schedule over a run of
// `epochs` epochs from `lr` keeps every rate a float: its gamma positive and finite, and, above
// 1, not growing lr past float's largest value by the last epoch (a gamma of 1e300 did by the
// second, and the run stopped there with an optimizer error); its step size at least 1. Other
// kinds pass.
void check_schedule(const LrSchedule& schedule, double lr, std::size_t epochs);

// The learning rate of optimizer step `step` (0-based) in a run of `total_steps` steps with
// `steps_per_epoch` steps per epoch.
double scheduled_lr(const LrSchedule& schedule, double base_lr, std::size_t step, std::size_t steps_per_epoch,
                    std::size_t total_steps);

}  // namespace seatorch::train
