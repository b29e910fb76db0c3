// Data sets by name: the single place that maps `--dataset NAME` to a loader.
#pragma once

#include "seatorch/data/dataset.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace seatorch {

// The names load_dataset() accepts, for help texts and error messages.
std::vector<std::string> dataset_names();

// Loads (or generates) the named data set; throws InputError for an unknown name.
DataSplit load_dataset(std::string_view name);

}  // namespace seatorch
