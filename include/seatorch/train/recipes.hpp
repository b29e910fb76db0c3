// Named training recipes for the image data sets, one flag away (`seatorch train --recipe`):
// the most accurate MLPs that fit the Mini NPU, found on a validation split
// (docs/ACCURACY.md has how, and what each ingredient adds).
//   best   784-256-128-10, the largest family that fits the default NPU's weight memory
//   ice40  784-128-10, the iCE40 configuration's size
// Deliberately not here: the data set defaults (default_tensor_config) and tuning itself.
#pragma once

#include "seatorch/train/tensor_trainer.hpp"

#include <span>
#include <string>
#include <string_view>

namespace seatorch::train {

struct Recipe {
  std::string_view name;
  std::string_view purpose;  // one line for --help
  TensorTrainConfig (*config)();
};

// Every recipe, in the order --help lists them.
std::span<const Recipe> recipes();

// The recipe called `name`; OptionError ("recipe") naming the known ones otherwise.
const Recipe& find_recipe(std::string_view name);

// What the recipe sets, in `seatorch train` flags' words, for --help and the log.
std::string describe_recipe(const Recipe& recipe);

}  // namespace seatorch::train
