// Elastic distortions (Simard, Steinkraus and Platt, ICDAR 2003): a displacement field
// dx, dy per image, made of uniform noise in [-1, 1] smoothed by a Gaussian of width sigma
// and scaled by alpha; each output pixel then samples the source displaced by it.
//
// The field. Simard draws the noise at every pixel and convolves it with a normalised
// Gaussian kernel. The smoothed field varies only over distances of about sigma, so we draw
// the noise on a coarser lattice, spacing h = sigma, and sum Gaussian bumps on its points:
//   d(y, x) = alpha * h * sum_{p,q} n_pq * g(y - Y_p) * g(x - X_q),   n_pq ~ U[-1, 1]
// g the 1-D Gaussian density of width sigma, the lattice reaching 3 sigma beyond the field.
// Each lattice value stands for h^2 pixels of noise, so this is the same random field (a
// Gaussian-filtered white noise of the same variance and correlation) up to a ripple of
// 2 exp(-pi^2) ~ 1e-4 of the variance, and without Simard's fading at the image border:
//   std(d)               = alpha / (sigma * sqrt(12 pi))
//   corr(d(p), d(p + r)) = exp(-|r|^2 / (4 sigma^2))
//
// The bank. Smoothing a fresh field for every image would cost more than the warp itself.
// A stationary field looks the same through every window, so each epoch draws a bank of
// kBankFields large fields (field_side() pixels square, the image's side doubled plus 8) and
// each image takes its dx and its dy as windows of two different bank fields at random
// offsets. Every window has the statistics above, dx and dy are independent, and an epoch
// offers 2 x 64 x 37^2 ~ 175,000 distinct windows of a 28 x 28 image; the bank costs two
// matrix products per field and epoch (kernels::matmul), and a window nothing but its pointer.
// Deliberately not here: the random streams (the augmenter seeds the bank per epoch and the
// windows per image) and sampling (kernels/warp.hpp).
#pragma once

#include "seatorch/core/rng.hpp"

#include <cstddef>
#include <vector>

namespace seatorch::augment {

struct ElasticParams {
  double alpha = 20.0;  // displacement scale, pixels (Simard used 34; 20 suits 784-256-128-10 better)
  double sigma = 4.0;   // smoothing width, pixels
};

// The field's standard deviation at every pixel (the file comment's formula).
double elastic_std(const ElasticParams& params);

// The largest alpha: past it a pixel moves further than the widest image any reader accepts
// (4096 a side), and an alpha near 1e38 made the field's weights infinite (alpha x sigma in
// float), its sums of opposite signs NaN.
inline constexpr double kMaxElasticAlpha = 4096.0;

// Throws OptionError naming the value when alpha is outside [0, kMaxElasticAlpha] or sigma
// outside [0.5, 64].
void validate_elastic(const ElasticParams& params);

// One image's displacements: dx at (y, x) is dx[y * stride + x], dy likewise.
struct ElasticWindow {
  const float* dx = nullptr;
  const float* dy = nullptr;
  std::size_t stride = 0;
};

class ElasticBank {
 public:
  static constexpr std::size_t kBankFields = 64;

  // For images of `side` x `side` pixels. Empty until the first draw().
  ElasticBank(const ElasticParams& params, std::size_t side);

  // A fresh bank: every field's lattice noise from rng, then smoothed.
  void draw(core::Rng& rng);
  // An image's window: two different fields and an offset in each, from rng.
  [[nodiscard]] ElasticWindow window(core::Rng& rng) const;

  [[nodiscard]] std::size_t field_side() const { return field_side_; }
  // Field f of the bank at (y, x), for tests: field(f)[y * row_stride() + x].
  [[nodiscard]] const float* field(std::size_t f) const { return out_.data() + f * field_side_ * field_side_; }
  [[nodiscard]] std::size_t row_stride() const { return field_side_; }

 private:
  std::size_t side_ = 0;        // the images'
  std::size_t field_side_ = 0;  // the bank fields'
  std::size_t points_ = 0;      // lattice points along each axis of a field
  std::vector<float> gy_;       // (field_side, points): alpha * h * g(y - Y_p)
  std::vector<float> gx_;       // (field_side, points): g(x - X_q)
  std::vector<float> noise_;    // (fields, points, points) lattice noise
  std::vector<float> mid_;      // (fields, points, field_side): noise * gx^T
  std::vector<float> out_;      // (fields, field_side, field_side): gy * mid, per field
};

}  // namespace seatorch::augment
