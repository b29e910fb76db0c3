// Conversions between live tensors and named buffers, with checks that name the culprit.
#include "seatorch/nn/state_dict.hpp"

#include "seatorch/core/error.hpp"

#include <fmt/ranges.h>

#include <algorithm>
#include <utility>

namespace seatorch::nn {

std::string sequential_parameter_name(std::size_t layer, std::string_view parameter) {
  return fmt::format("{}.{}", 2 * layer, parameter);
}

NamedBuffer to_buffer(std::string name, const tensor::Tensor& t, tensor::WeightLayout layout) {
  const tensor::Shape shape = tensor::out_in_shape(t.shape(), layout);
  NamedBuffer buffer{std::move(name), std::vector<std::size_t>(shape.begin(), shape.end()),
                     std::vector<float>(shape.numel())};
  tensor::copy_out_in(t, layout, buffer.data);
  return buffer;
}

const NamedBuffer* find_buffer(const StateDict& state, std::string_view name) {
  const auto it = std::find_if(state.begin(), state.end(), [&](const NamedBuffer& b) { return b.name == name; });
  return it == state.end() ? nullptr : &*it;
}

void copy_into(const NamedBuffer& buffer, const tensor::Tensor& dst, std::string_view owner,
               tensor::WeightLayout layout) {
  const tensor::Shape shape{std::span<const std::size_t>(buffer.shape)};
  const tensor::Shape expected = tensor::out_in_shape(dst.shape(), layout);
  if (!(shape == expected) || buffer.data.size() != dst.numel()) {
    throw core::input_error("{}: '{}' has shape {} ({} values) but {} is expected; the checkpoint was "
                            "made for another architecture",
                            owner, buffer.name, shape.str(), buffer.data.size(), expected.str());
  }
  const std::size_t width = layout == tensor::WeightLayout::kInOutPanels ? dst.shape()[2] : 0;
  const std::vector<float> held =
      tensor::weight_held(tensor::Tensor::from<float>(buffer.data, shape), layout, width).values();  // (dst's shape)
  std::copy(held.begin(), held.end(), dst.data<float>());
}

void reject_unexpected(const StateDict& state, const std::vector<std::string>& expected, std::string_view owner) {
  for (const NamedBuffer& b : state) {
    if (std::find(expected.begin(), expected.end(), b.name) == expected.end()) {
      throw core::input_error("{}: unexpected tensor '{}'; expected only {}", owner, b.name, fmt::join(expected, ", "));
    }
  }
}

}  // namespace seatorch::nn
