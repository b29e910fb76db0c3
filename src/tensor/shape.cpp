// Shape arithmetic: contiguous strides, broadcasting, axis normalization.
#include "seatorch/tensor/shape.hpp"

#include "seatorch/core/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace seatorch::tensor {

Dims::Dims(std::initializer_list<std::size_t> sizes) : Dims(std::span(sizes.begin(), sizes.size())) {}

Dims::Dims(std::span<const std::size_t> sizes) {
  for (std::size_t s : sizes) push_back(s);
}

void Dims::push_back(std::size_t size) {
  if (rank_ == kMaxDims) {
    throw core::input_error("a tensor has at most {} dimensions; reshape it to fewer", kMaxDims);
  }
  sizes_[rank_++] = size;
}

std::size_t Dims::numel() const {
  std::size_t n = 1;
  for (std::size_t s : *this) n *= s;
  return n;
}

std::string Dims::str() const { return fmt::format("({})", fmt::join(*this, ", ")); }

Strides contiguous_strides(const Shape& shape) {
  Strides strides = shape;
  std::size_t step = 1;
  for (std::size_t d = shape.rank(); d-- > 0;) {
    strides[d] = step;
    step *= shape[d];
  }
  return strides;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const std::size_t rank = std::max(a.rank(), b.rank());
  Shape out;
  for (std::size_t d = 0; d < rank; ++d) {
    // Right-aligned: dimension d of the result is a's (d - (rank - a.rank())) if it exists.
    const std::size_t sa = d + a.rank() >= rank ? a[d + a.rank() - rank] : 1;
    const std::size_t sb = d + b.rank() >= rank ? b[d + b.rank() - rank] : 1;
    if (sa != sb && sa != 1 && sb != 1) {
      throw core::input_error("shapes {} and {} do not broadcast: sizes {} and {} differ and neither is 1", a.str(),
                              b.str(), sa, sb);
    }
    out.push_back(sa == 1 ? sb : sa);
  }
  return out;
}

Strides broadcast_strides(const Shape& shape, const Strides& strides, const Shape& target) {
  if (shape.rank() > target.rank()) {
    throw core::input_error("cannot broadcast shape {} to the smaller rank of {}", shape.str(), target.str());
  }
  Strides out;
  const std::size_t lead = target.rank() - shape.rank();
  for (std::size_t d = 0; d < target.rank(); ++d) {
    if (d < lead) {
      out.push_back(0);
      continue;
    }
    const std::size_t size = shape[d - lead];
    if (size != target[d] && size != 1) {
      throw core::input_error("cannot broadcast shape {} to {}", shape.str(), target.str());
    }
    out.push_back(size == 1 ? 0 : strides[d - lead]);
  }
  return out;
}

std::size_t normalize_axis(int axis, std::size_t rank) {
  const auto r = static_cast<int>(rank);
  if (axis < -r || axis >= r) {
    throw core::input_error("axis {} is out of range for a tensor of rank {} (use -{}..{})", axis, rank, rank,
                            rank == 0 ? 0 : rank - 1);
  }
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

}  // namespace seatorch::tensor
