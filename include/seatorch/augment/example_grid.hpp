// A picture of what augmentation does, for people who would rather look than read: a grid
// with one training image per row, first as it is and then as each of the first epochs of a
// run with this seed transforms it (the very transforms training draws).
// Deliberately not here: writing the file (image/png_writer.hpp) and choosing where.
#pragma once

#include "seatorch/augment/augmenter.hpp"
#include "seatorch/data/dataset.hpp"
#include "seatorch/image/gray_image.hpp"

#include <cstddef>
#include <cstdint>

namespace seatorch::augment {

struct ExampleGridSize {
  std::size_t images = 8;  // rows: training samples 0, 1, ...
  std::size_t epochs = 9;  // columns after the original: epochs 1, 2, ...
  std::size_t gap = 2;     // pixels of black between cells
};

// The grid, (images * (side + gap) - gap, (1 + epochs) * (side + gap) - gap) pixels, for a
// run with seed `run_seed`.
image::GrayImage example_grid(const AugmentConfig& config, const data::Dataset& train, std::uint64_t run_seed,
                              const ExampleGridSize& size = {});

}  // namespace seatorch::augment
