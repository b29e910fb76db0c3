// Random affine transforms of a training image: rotation, isotropic scale, horizontal shear
// and translation, each drawn uniformly within a range the user sets, about the image centre.
//
// The drawn transform T moves the digit: a source point p lands at
//   T(p) = M (p - c) + c + t,   M = R(rotation) * Shear(shear) * S(scale)
// where c is the centre ((width - 1) / 2, (height - 1) / 2) and t the shift in pixels
// (positive x to the right, positive y down). Warping needs the other direction, the source
// point of each output pixel: source_map() returns T^-1 as a kernels::WarpMap, computed in
// double and rounded once, so that an identity or integer-shift transform maps pixel centres
// onto pixel centres exactly.
// Deliberately not here: sampling (kernels/warp.hpp), elastic fields (elastic.hpp),
// flips (a mirrored digit is another digit, or none).
#pragma once

#include "seatorch/core/rng.hpp"
#include "seatorch/kernels/warp.hpp"

#include <cstddef>

namespace seatorch::augment {

// The widest shift: a digit moved further than the widest image any reader accepts (4096
// pixels a side) is a blank page, and sample positions stay far from float's overflow.
inline constexpr double kMaxShiftPixels = 4096.0;

// The ranges the parameters are drawn from; each is symmetric about "no change".
struct AffineRanges {
  double rotate_degrees = 10.0;  // rotation in [-r, r] degrees
  double shift_pixels = 2.0;     // tx and ty each in [-s, s] pixels
  double scale = 0.1;            // scale factor in [1 - s, 1 + s]
  double shear_degrees = 10.0;   // horizontal shear angle in [-h, h] degrees
};

// One drawn transform.
struct Affine {
  double rotate_degrees = 0.0;
  double scale = 1.0;
  double shear_degrees = 0.0;
  double shift_x = 0.0;
  double shift_y = 0.0;
};

// Draws rotation, scale, shear, shift_x and shift_y, in that order, each with one
// rng.uniform(lo, hi) (a range of 0 still consumes its draw, so each range changes only its
// own parameter).
Affine draw_affine(const AffineRanges& ranges, core::Rng& rng);

// T^-1 for a width x height image (see the file comment). Throws InputError when the scale
// is not positive or the shear is not within (-90, 90) degrees (no inverse).
kernels::WarpMap source_map(const Affine& transform, std::size_t width, std::size_t height);

// Throws OptionError naming the value ("rotation range", ...) when a range is negative or not
// finite, the shift range past kMaxShiftPixels, the scale range 1 or more (the scale could
// reach 0) or the shear range 90 degrees or more.
void validate_ranges(const AffineRanges& ranges);

}  // namespace seatorch::augment
