// Synthetic 2-D classification sets for the scalar engine: XOR and two interleaved moons.
// Both are generated, never read from disk, and deterministic for a seed.
#pragma once

#include "seatorch/data/dataset.hpp"

#include <cstddef>
#include <cstdint>

namespace seatorch::data {

// The four XOR points {0,1}^2 with label a XOR b; the test part is the same four points.
DataSplit make_xor();

// Two interleaving half circles (as scikit-learn's make_moons and micrograd's demo) with
// Gaussian noise of standard deviation `noise`; the test part is drawn independently.
DataSplit make_moons(std::size_t train_size, std::size_t test_size, double noise, std::uint64_t seed);

}  // namespace seatorch::data
