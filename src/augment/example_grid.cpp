// The example grid (example_grid.hpp): originals in the first column, epochs after it.
#include "seatorch/augment/example_grid.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/kernels/pixel_values.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace seatorch::augment {
namespace {

// Copies one (side, side) image of pixel values in [0, 1] into the grid at cell (row, col).
void place(image::GrayImage& grid, std::span<const float> values, std::size_t side, std::size_t gap, std::size_t row,
           std::size_t col) {
  for (std::size_t y = 0; y < side; ++y) {
    for (std::size_t x = 0; x < side; ++x) {
      const float v = std::clamp(values[y * side + x], 0.0f, 1.0f);
      grid.pixels[(row * (side + gap) + y) * grid.width + col * (side + gap) + x] =
          static_cast<std::uint8_t>(std::lround(v * kernels::kPixelMax));
    }
  }
}

}  // namespace

image::GrayImage example_grid(const AugmentConfig& config, const data::Dataset& train, std::uint64_t run_seed,
                              const ExampleGridSize& size) {
  const std::size_t side = image_side(train);
  const std::size_t images = std::min(size.images, train.size());
  if (images == 0 || size.epochs == 0) {
    throw core::input_error("an example grid needs at least one training image and one epoch");
  }
  image::GrayImage grid;
  grid.width = (1 + size.epochs) * (side + size.gap) - size.gap;
  grid.height = images * (side + size.gap) - size.gap;
  grid.pixels.assign(grid.width * grid.height, 0);
  std::vector<std::size_t> rows(images);  // (images) samples 0, 1, ...
  std::iota(rows.begin(), rows.end(), 0);
  std::vector<float> values(images * side * side);  // (images, side * side)
  for (std::size_t r = 0; r < images; ++r) {
    kernels::pixel_values(train.pixels_of(r), std::span<float>(values).subspan(r * side * side, side * side));
    place(grid, std::span<const float>(values).subspan(r * side * side, side * side), side, size.gap, r, 0);
  }
  Augmenter augmenter(config, train, augment_seed(run_seed));
  for (std::size_t epoch = 1; epoch <= size.epochs; ++epoch) {
    augmenter.augment(rows, epoch, values);
    for (std::size_t r = 0; r < images; ++r) {
      place(grid, std::span<const float>(values).subspan(r * side * side, side * side), side, size.gap, r, epoch);
    }
  }
  return grid;
}

}  // namespace seatorch::augment
