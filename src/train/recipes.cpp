// The recipes (recipes.hpp). Each was chosen on a 10 % validation split of MNIST's training
// set; docs/ACCURACY.md holds the runs behind every number here.
#include "seatorch/train/recipes.hpp"

#include "seatorch/core/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>

namespace seatorch::train {
namespace {

// Shared by both recipes: Adam with a one-cycle schedule over 150 epochs of batch 128, and
// affine plus elastic augmentation, without dropout (augmentation regularizes enough: with
// it, dropout 0.1 cost validation accuracy).
TensorTrainConfig augmented_base() {
  TensorTrainConfig c;
  c.epochs = 150;
  c.batch = 128;
  c.optimizer = OptimizerKind::kAdam;
  c.lr = 2e-3;
  c.schedule = {ScheduleKind::kOneCycle};
  c.augment.affine = true;
  c.augment.elastic = true;
  return c;
}

TensorTrainConfig best() {
  TensorTrainConfig c = augmented_base();
  c.hidden = {256, 128};
  c.augment.ranges = {10.0, 2.0, 0.1, 10.0};  // the flags' defaults, spelled out
  c.augment.elastic_params = {20.0, 4.0};
  return c;
}

// The narrower model underfits Simard's strong distortions: milder ones do better.
TensorTrainConfig ice40() {
  TensorTrainConfig c = augmented_base();
  c.hidden = {128};
  c.augment.ranges = {8.0, 1.5, 0.08, 5.0};
  c.augment.elastic_params = {15.0, 4.0};
  return c;
}

constexpr std::array kRecipes{
    Recipe{"best", "784-256-128-10, the most accurate MLP that fits the default Mini NPU", best},
    Recipe{"ice40", "784-128-10, the most accurate MLP of the iCE40 configuration's size", ice40},
};

}  // namespace

std::span<const Recipe> recipes() { return kRecipes; }

const Recipe& find_recipe(std::string_view name) {
  for (const Recipe& r : kRecipes) {
    if (r.name == name) return r;
  }
  std::vector<std::string_view> names;
  for (const Recipe& r : kRecipes) names.push_back(r.name);
  throw core::option_error("recipe", "unknown recipe '{}': use one of {}", name, fmt::join(names, ", "));
}

std::string describe_recipe(const Recipe& recipe) {
  const TensorTrainConfig c = recipe.config();
  const augment::AugmentConfig& a = c.augment;
  return fmt::format("--hidden {} --epochs {} --batch {} --opt {} --lr {} --schedule {} --dropout {} --augment {} "
                     "--rotate {} --shift {} --scale {} --shear {} --elastic-alpha {} --elastic-sigma {}",
                     fmt::join(c.hidden, ","), c.epochs, c.batch, optimizer_name(c.optimizer), c.lr,
                     schedule_name(c.schedule.kind), c.dropout, augment::augment_list(a), a.ranges.rotate_degrees,
                     a.ranges.shift_pixels, a.ranges.scale, a.ranges.shear_degrees, a.elastic_params.alpha,
                     a.elastic_params.sigma);
}

}  // namespace seatorch::train
