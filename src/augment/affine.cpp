// Drawing affine parameters and inverting the transform (affine.hpp).
#include "seatorch/augment/affine.hpp"

#include "seatorch/core/error.hpp"

#include <cmath>
#include <numbers>

namespace seatorch::augment {
namespace {

double radians(double degrees) { return degrees * std::numbers::pi / 180.0; }

}  // namespace

void validate_ranges(const AffineRanges& r) {
  if (!(r.rotate_degrees >= 0.0 && std::isfinite(r.rotate_degrees))) {
    throw core::option_error("rotation range", "the rotation range must be finite and not negative, got {}",
                             r.rotate_degrees);
  }
  if (!(r.shift_pixels >= 0.0 && r.shift_pixels <= kMaxShiftPixels)) {
    throw core::option_error("shift range", "the shift range must be in [0, {}] pixels, got {}", kMaxShiftPixels,
                             r.shift_pixels);
  }
  if (!(r.scale >= 0.0 && r.scale < 1.0)) {
    throw core::option_error("scale range", "the scale range must be in [0, 1), got {}", r.scale);
  }
  if (!(r.shear_degrees >= 0.0 && r.shear_degrees < 90.0)) {
    throw core::option_error("shear range", "the shear range must be in [0, 90) degrees, got {}", r.shear_degrees);
  }
}

Affine draw_affine(const AffineRanges& r, core::Rng& rng) {
  Affine a;
  a.rotate_degrees = rng.uniform(-r.rotate_degrees, r.rotate_degrees);
  a.scale = rng.uniform(1.0 - r.scale, 1.0 + r.scale);
  a.shear_degrees = rng.uniform(-r.shear_degrees, r.shear_degrees);
  a.shift_x = rng.uniform(-r.shift_pixels, r.shift_pixels);
  a.shift_y = rng.uniform(-r.shift_pixels, r.shift_pixels);
  return a;
}

kernels::WarpMap source_map(const Affine& t, std::size_t width, std::size_t height) {
  if (!(t.scale > 0.0)) throw core::input_error("an affine scale must be positive, got {}", t.scale);
  if (!(std::abs(t.shear_degrees) < 90.0)) {
    throw core::input_error("an affine shear must be within (-90, 90) degrees, got {}", t.shear_degrees);
  }
  // M = R * Shear * S = [[c, -s], [s, c]] * [[1, k], [0, 1]] * scale; its inverse in closed
  // form. sin and cos of 0 and multiples of 90 degrees are snapped to exact values, so those
  // rotations move pixel centres onto pixel centres.
  const double angle = radians(t.rotate_degrees);
  const bool exact = std::fmod(t.rotate_degrees, 90.0) == 0.0;
  const double c = exact ? std::round(std::cos(angle)) : std::cos(angle);
  const double s = exact ? std::round(std::sin(angle)) : std::sin(angle);
  const double k = std::tan(radians(t.shear_degrees));
  const double m00 = t.scale * c;
  const double m01 = t.scale * (c * k - s);
  const double m10 = t.scale * s;
  const double m11 = t.scale * (s * k + c);
  const double det = m00 * m11 - m01 * m10;  // = scale^2: rotation and shear keep the area
  const double i00 = m11 / det;
  const double i01 = -m01 / det;
  const double i10 = -m10 / det;
  const double i11 = m00 / det;
  // p = M^-1 (q - c - t) + c for output pixel q.
  const double cx = (static_cast<double>(width) - 1.0) / 2.0;
  const double cy = (static_cast<double>(height) - 1.0) / 2.0;
  const double qx = cx + t.shift_x;
  const double qy = cy + t.shift_y;
  kernels::WarpMap map;
  map.xx = static_cast<float>(i00);
  map.xy = static_cast<float>(i01);
  map.x0 = static_cast<float>(cx - (i00 * qx + i01 * qy));
  map.yx = static_cast<float>(i10);
  map.yy = static_cast<float>(i11);
  map.y0 = static_cast<float>(cy - (i10 * qx + i11 * qy));
  return map;
}

}  // namespace seatorch::augment
