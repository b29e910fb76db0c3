// Conversions between live tensors and named buffers, with checks that name the culprit.
#include "seatorch/nn/state_dict.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/tensor/movement.hpp"

#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

namespace seatorch::nn {

std::string sequential_parameter_name(std::size_t layer, std::string_view parameter) {
  return fmt::format("{}.{}", 2 * layer, parameter);
}

namespace {

// The 2-D tensor's values transposed, row-major: its transposed view's values. Detached, so
// that a parameter's transpose is not recorded.
std::vector<float> transposed_values(const tensor::Tensor& t) { return tensor::transpose(t.detach(), 0, 1).values(); }

}  // namespace

NamedBuffer to_buffer(std::string name, const tensor::Tensor& t, bool transposed) {
  std::vector<std::size_t> shape(t.shape().begin(), t.shape().end());
  if (transposed) std::swap(shape[0], shape[1]);
  return NamedBuffer{std::move(name), std::move(shape), transposed ? transposed_values(t) : t.values()};
}

const NamedBuffer* find_buffer(const StateDict& state, std::string_view name) {
  const auto it = std::find_if(state.begin(), state.end(), [&](const NamedBuffer& b) { return b.name == name; });
  return it == state.end() ? nullptr : &*it;
}

void copy_into(const NamedBuffer& buffer, const tensor::Tensor& dst, std::string_view owner, bool transposed) {
  const tensor::Shape shape{std::span<const std::size_t>(buffer.shape)};
  const tensor::Shape expected = transposed ? tensor::Shape{dst.shape()[1], dst.shape()[0]} : dst.shape();
  if (!(shape == expected) || buffer.data.size() != dst.numel()) {
    throw core::input_error("{}: '{}' has shape {} ({} values) but {} is expected; the checkpoint was "
                            "made for another architecture",
                            owner, buffer.name, shape.str(), buffer.data.size(), expected.str());
  }
  if (transposed) {
    const std::vector<float> held =
        transposed_values(tensor::Tensor::from<float>(buffer.data, shape));  // (dst's shape)
    std::copy(held.begin(), held.end(), dst.data<float>());
  } else {
    std::copy(buffer.data.begin(), buffer.data.end(), dst.data<float>());
  }
}

void reject_unexpected(const StateDict& state, const std::vector<std::string>& expected, std::string_view owner) {
  for (const NamedBuffer& b : state) {
    if (std::find(expected.begin(), expected.end(), b.name) == expected.end()) {
      throw core::input_error("{}: unexpected tensor '{}'; expected only {}", owner, b.name, fmt::join(expected, ", "));
    }
  }
}

}  // namespace seatorch::nn
