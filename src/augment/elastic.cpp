// The elastic bank (elastic.hpp): lattice weights once, the products once per epoch, a
// pointer per image.
#include "seatorch/augment/elastic.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/kernels/matmul.hpp"

#include <cmath>
#include <numbers>

namespace seatorch::augment {
namespace {

constexpr double kReach = 3.0;  // the lattice extends this many sigmas beyond the field

double gaussian_density(double u, double sigma) {
  return std::exp(-u * u / (2.0 * sigma * sigma)) / (sigma * std::sqrt(2.0 * std::numbers::pi));
}

// Lattice points along an axis of `size` pixels, spacing sigma, centred on the axis and
// reaching kReach * sigma beyond both ends.
std::size_t lattice_points(std::size_t size, double sigma) {
  const double span = static_cast<double>(size - 1) + 2.0 * kReach * sigma;
  return static_cast<std::size_t>(std::ceil(span / sigma)) + 1;
}

// (pixels, points): scale * g(i - P_p) for pixel i and lattice point P_p.
std::vector<float> lattice_weights(std::size_t pixels, std::size_t points, double sigma, double scale) {
  std::vector<float> w(pixels * points);
  const double centre = (static_cast<double>(pixels) - 1.0) / 2.0;
  const double first = centre - (static_cast<double>(points) - 1.0) / 2.0 * sigma;
  for (std::size_t i = 0; i < pixels; ++i) {
    for (std::size_t p = 0; p < points; ++p) {
      const double at = first + static_cast<double>(p) * sigma;
      w[i * points + p] = static_cast<float>(scale * gaussian_density(static_cast<double>(i) - at, sigma));
    }
  }
  return w;
}

}  // namespace

double elastic_std(const ElasticParams& params) {
  return params.alpha / (params.sigma * std::sqrt(12.0 * std::numbers::pi));
}

void validate_elastic(const ElasticParams& params) {
  if (!(params.alpha >= 0.0 && params.alpha <= kMaxElasticAlpha)) {
    throw core::option_error("elastic alpha", "the elastic alpha must be in [0, {}] pixels, got {}", kMaxElasticAlpha,
                             params.alpha);
  }
  if (!(params.sigma >= 0.5 && params.sigma <= 64.0)) {
    throw core::option_error("elastic sigma", "the elastic sigma must be in [0.5, 64] pixels, got {}", params.sigma);
  }
}

ElasticBank::ElasticBank(const ElasticParams& params, std::size_t side) : side_(side), field_side_(2 * side + 8) {
  validate_elastic(params);
  points_ = lattice_points(field_side_, params.sigma);
  gy_ = lattice_weights(field_side_, points_, params.sigma, params.alpha * params.sigma);
  gx_ = lattice_weights(field_side_, points_, params.sigma, 1.0);
}

void ElasticBank::draw(core::Rng& rng) {
  const std::size_t side = field_side_;
  noise_.resize(kBankFields * points_ * points_);
  mid_.resize(kBankFields * points_ * side);
  out_.resize(kBankFields * side * side);
  // Four 16-bit uniforms per 64-bit draw, each mapped to the centre of its bin in (-1, 1).
  std::uint64_t bits = 0;
  for (std::size_t i = 0; i < noise_.size(); ++i) {
    if (i % 4 == 0) bits = rng.next_u64();
    const auto u = static_cast<std::uint16_t>(bits >> (16 * (i % 4)));
    noise_[i] = (static_cast<float>(u) - 32767.5f) / 32768.0f;
  }
  using kernels::MatmulArgs;
  using kernels::Transpose;
  // mid (fields * points, side) = noise (fields * points, points) * gx^T (points, side)
  MatmulArgs along_x;
  along_x.shape = {kBankFields * points_, side, points_};
  along_x.a = noise_.data();
  along_x.lda = points_;
  along_x.b = gx_.data();
  along_x.ldb = points_;
  along_x.tb = Transpose::kYes;
  along_x.c = mid_.data();
  along_x.ldc = side;
  kernels::matmul(along_x);
  // Each field on its own, so that it is contiguous: out_f (side, side) = gy (side, points) * mid_f (points, side)
  for (std::size_t f = 0; f < kBankFields; ++f) {
    MatmulArgs along_y;
    along_y.shape = {side, side, points_};
    along_y.a = gy_.data();
    along_y.lda = points_;
    along_y.b = mid_.data() + f * points_ * side;
    along_y.ldb = side;
    along_y.c = out_.data() + f * side * side;
    along_y.ldc = side;
    kernels::matmul(along_y);
  }
}

ElasticWindow ElasticBank::window(core::Rng& rng) const {
  const std::size_t fx = rng.below(kBankFields);
  const std::size_t other = rng.below(kBankFields - 1);
  const std::size_t fy = (fx + 1 + other) % kBankFields;  // any field but fx
  // One draw per statement: the order of draws is part of the seed's meaning.
  const std::size_t offsets = field_side_ - side_ + 1;
  const std::size_t dx_col = rng.below(offsets);
  const std::size_t dx_row = rng.below(offsets);
  const std::size_t dy_col = rng.below(offsets);
  const std::size_t dy_row = rng.below(offsets);
  return {field(fx) + dx_row * row_stride() + dx_col, field(fy) + dy_row * row_stride() + dy_col, row_stride()};
}

}  // namespace seatorch::augment
