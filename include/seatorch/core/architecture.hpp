// The name of an MLP's shape: its layer sizes from the input to the output joined by "-",
// "784-256-128-10". Every model type (the float MLP, the int8 model, the NPU image's layer
// table, the tensor engine's MLP) names itself with it, so that messages, file metadata and
// reports compare equal across stages.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace seatorch::core {

// {784, 256, 128, 10} -> "784-256-128-10"; {} -> "".
std::string architecture_name(std::span<const std::size_t> sizes);

}  // namespace seatorch::core
