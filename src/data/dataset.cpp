// Dataset's two encodings behind one float view (data/dataset.hpp).
#include "seatorch/data/dataset.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/core/prefetch.hpp"
#include "seatorch/kernels/pixel_values.hpp"

#include <algorithm>
#include <cassert>

namespace seatorch::data {

void Dataset::copy_features(std::size_t first, std::size_t count, std::span<float> out) const {
  assert(first + count <= size() && out.size() == count * features);
  (void)count;  // the size of `out` says it
  const std::size_t begin = first * features;
  if (is_image()) {
    kernels::pixel_values(std::span<const std::uint8_t>(pixels).subspan(begin, out.size()), out);
  } else {
    std::copy_n(x.begin() + static_cast<std::ptrdiff_t>(begin), out.size(), out.begin());
  }
}

std::span<const std::byte> Dataset::feature_bytes(std::size_t i) const {
  if (is_image()) return std::as_bytes(std::span<const std::uint8_t>(pixels).subspan(i * features, features));
  return std::as_bytes(std::span<const float>(x).subspan(i * features, features));
}

void Dataset::prefetch_features(std::size_t i) const {
  const std::span<const std::byte> bytes = feature_bytes(i);
  core::prefetch_lines(bytes.data(), bytes.size());
}

void Dataset::prefetch_first_line(std::size_t i) const { core::prefetch_lines(feature_bytes(i).data(), 1); }

std::span<const std::uint8_t> Dataset::pixels_of(std::size_t i) const {
  if (!is_image()) return {};
  return std::span<const std::uint8_t>(pixels).subspan(i * features, features);
}

Dataset Dataset::slice(std::size_t first, std::size_t count) const {
  assert(first + count <= size());
  const auto begin = static_cast<std::ptrdiff_t>(first * features);
  const auto end = static_cast<std::ptrdiff_t>((first + count) * features);
  Dataset part{features, classes, {}, {}, {}};
  if (is_image()) {
    part.pixels.assign(pixels.begin() + begin, pixels.begin() + end);
  } else {
    part.x.assign(x.begin() + begin, x.begin() + end);
  }
  part.y.assign(y.begin() + static_cast<std::ptrdiff_t>(first), y.begin() + static_cast<std::ptrdiff_t>(first + count));
  return part;
}

std::span<const std::uint8_t> image_pixels(const Dataset& data, std::string_view user) {
  if (!data.is_image() && data.size() > 0) {
    throw core::input_error("{} reads pixel bytes, but this data set has real-valued features; use an image data set "
                            "(mnist, fashion-mnist)",
                            user);
  }
  return data.pixels;
}

}  // namespace seatorch::data
