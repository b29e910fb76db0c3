// Conversions between live tensors and named buffers, with checks that name the culprit.
#include "seatorch/nn/state_dict.hpp"

#include "seatorch/core/error.hpp"

#include <fmt/ranges.h>

#include <algorithm>

namespace seatorch::nn {

std::string sequential_parameter_name(std::size_t layer, std::string_view parameter) {
  return fmt::format("{}.{}", 2 * layer, parameter);
}

namespace {

// (cols, rows) <- its transpose (rows, cols), both row-major.
void transpose_into(const float* from, std::size_t rows, std::size_t cols, float* to) {
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) to[c * rows + r] = from[r * cols + c];
  }
}

}  // namespace

NamedBuffer to_buffer(std::string name, const tensor::Tensor& t, bool transposed) {
  if (!transposed) {
    return NamedBuffer{std::move(name), std::vector<std::size_t>(t.shape().begin(), t.shape().end()), t.values()};
  }
  const std::vector<float> stored = t.values();  // (rows, cols): the transpose of the buffer's matrix
  const std::size_t rows = t.shape()[0];
  const std::size_t cols = t.shape()[1];
  NamedBuffer b{std::move(name), {cols, rows}, std::vector<float>(stored.size())};
  transpose_into(stored.data(), rows, cols, b.data.data());
  return b;
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
    transpose_into(buffer.data.data(), expected[0], expected[1], dst.data<float>());
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
