// Shapes and strides of tensors: a small fixed-capacity list of sizes, so that making a
// view or an op's output never allocates for its geometry.
//
// Strides are in elements, not bytes, and never negative (there is no flip view). A stride
// of 0 is how broadcasting repeats an element without copying it.
// Deliberately not here: anything about data or dtype (see tensor.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>

namespace seatorch::tensor {

// The most dimensions a tensor may have. MLP training needs two; six leaves room for
// images (N, C, H, W) and the permutation tests without making Dims large.
inline constexpr std::size_t kMaxDims = 6;

class Dims {
 public:
  Dims() = default;  // rank 0: the shape of a scalar
  Dims(std::initializer_list<std::size_t> sizes);
  explicit Dims(std::span<const std::size_t> sizes);

  [[nodiscard]] std::size_t rank() const { return rank_; }
  [[nodiscard]] std::size_t operator[](std::size_t i) const { return sizes_[i]; }
  [[nodiscard]] std::size_t& operator[](std::size_t i) { return sizes_[i]; }
  [[nodiscard]] const std::size_t* begin() const { return sizes_.data(); }
  [[nodiscard]] const std::size_t* end() const { return sizes_.data() + rank_; }
  // The product of the sizes (1 for rank 0).
  [[nodiscard]] std::size_t numel() const;
  // "(2, 3)"
  [[nodiscard]] std::string str() const;

  void push_back(std::size_t size);

  friend bool operator==(const Dims& a, const Dims& b) {
    return a.rank_ == b.rank_ && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  std::array<std::size_t, kMaxDims> sizes_{};
  std::size_t rank_ = 0;
};

using Shape = Dims;    // sizes per dimension
using Strides = Dims;  // elements between neighbours along each dimension

// Row-major strides of a dense tensor of this shape.
Strides contiguous_strides(const Shape& shape);

// NumPy broadcasting: align the shapes on the right; each pair of sizes must be equal or
// contain a 1. Throws InputError naming both shapes otherwise.
Shape broadcast_shapes(const Shape& a, const Shape& b);

// The strides that read a tensor of (shape, strides) as if it had shape `target` (which
// must be a broadcast of it): missing leading dimensions and size-1 dimensions get stride 0.
Strides broadcast_strides(const Shape& shape, const Strides& strides, const Shape& target);

// Maps a possibly negative axis (-1 = last) to [0, rank); throws InputError when outside.
std::size_t normalize_axis(int axis, std::size_t rank);

}  // namespace seatorch::tensor
