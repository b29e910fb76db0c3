// XOR and two-moons generators.
#include "seatorch/data/toy.hpp"

#include "seatorch/core/rng.hpp"

#include <cmath>
#include <numbers>

namespace seatorch::data {
namespace {

Dataset moons(std::size_t n, double noise, core::Rng& rng) {
  Dataset d;
  d.features = 2;
  d.classes = 2;
  const std::size_t outer = n / 2;
  for (std::size_t i = 0; i < n; ++i) {
    const bool is_outer = i < outer;
    const std::size_t count = is_outer ? outer : n - outer;
    const std::size_t k = is_outer ? i : i - outer;
    const double t = count > 1 ? std::numbers::pi * static_cast<double>(k) / static_cast<double>(count - 1) : 0.0;
    const double px = is_outer ? std::cos(t) : 1.0 - std::cos(t);
    const double py = is_outer ? std::sin(t) : 0.5 - std::sin(t);
    d.x.push_back(static_cast<float>(px + noise * rng.normal()));
    d.x.push_back(static_cast<float>(py + noise * rng.normal()));
    d.y.push_back(is_outer ? 0 : 1);
  }
  return d;
}

}  // namespace

DataSplit make_xor() {
  Dataset d;
  d.features = 2;
  d.classes = 2;
  d.x = {0, 0, 0, 1, 1, 0, 1, 1};
  d.y = {0, 1, 1, 0};
  return DataSplit{"xor", d, d};
}

DataSplit make_moons(std::size_t train_size, std::size_t test_size, double noise, std::uint64_t seed) {
  core::Rng rng(seed);
  Dataset train = moons(train_size, noise, rng);
  Dataset test = moons(test_size, noise, rng);
  return DataSplit{"moons", std::move(train), std::move(test)};
}

}  // namespace seatorch::data
