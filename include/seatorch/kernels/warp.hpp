// Bilinear resampling of one grayscale image through a per-pixel source map: the hot loop of
// training-time augmentation (augment/augmenter.hpp).
//
// The output pixel (x, y) reads the source at
//   sx = (xx * x + xy * y) + x0  [+ dx(y, x)]
//   sy = (yx * x + yy * y) + y0  [+ dy(y, x)]
// with the optional displacement fields (an elastic distortion) added last, and is
//   out(y, x) = bilinear(source, sx, sy) / 255
// where pixels outside the source are 0 (MNIST's background). Bilinear weights are computed
// as (1 - f) and f from f = s - floor(s), so an integer position reads its pixel exactly: the
// identity map gives the image back bit for bit, and so does an integer shift (shifted).
//
// warp_bilinear_ref() is the specification; warp_bilinear() runs the widest kernel this CPU
// has (AVX-512 or AVX2 gathers on x86), which performs the same float operations in the same
// order and so gives the same bits (tested against the reference with kWarpTolerance).
// Deliberately not here: drawing the transform (augment/affine.hpp, augment/elastic.hpp),
// other interpolations, colour images, threading.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace seatorch::kernels {

// The affine part of the source map (see the file comment).
struct WarpMap {
  float xx = 1.0f, xy = 0.0f, x0 = 0.0f;
  float yx = 0.0f, yy = 1.0f, y0 = 0.0f;
};

struct WarpArgs {
  std::size_t width = 0;
  std::size_t height = 0;
  const std::uint8_t* source = nullptr;  // (height, width) pixel bytes
  WarpMap map;
  const float* dx = nullptr;  // (height, field_stride) pixels added to sx; null: no field
  const float* dy = nullptr;  // (height, field_stride) pixels added to sy; null with dx
  std::size_t field_stride = 0;
  float* out = nullptr;              // (height, width) pixel values in [0, 1]
  std::uint32_t* scratch = nullptr;  // (warp_scratch_words(width, height)) the kernels' own, overwritten
};

// The largest difference warp_bilinear() may show against warp_bilinear_ref() (the kernels
// are exact today; the bound leaves room for a kernel that contracts to FMA).
inline constexpr float kWarpTolerance = 1e-6f;

// Words of scratch a call needs. The vector kernels keep the source there with a zero border,
// as bytes, and as one 32-bit word per position holding the position's 2 x 2 neighbourhood,
// so that one gather fetches all four bilinear neighbours of a pixel. The words come first,
// rounded up to whole 64-byte vectors.
constexpr std::size_t warp_quad_words(std::size_t width, std::size_t height) {
  return ((height + 2) * (width + 3) + 15) / 16 * 16;
}
constexpr std::size_t warp_scratch_words(std::size_t width, std::size_t height) {
  return warp_quad_words(width, height) + ((height + 3) * (width + 3) + 64 + 3) / 4;
}

void warp_bilinear_ref(const WarpArgs& args);
void warp_bilinear(const WarpArgs& args);

// Asks the CPU to fetch what warp_bilinear(args) will read (the source and the displacement
// rows) into its caches, so that warping one image can overlap fetching the next. Changes no
// value; a hint only.
void prefetch_warp_inputs(const WarpArgs& args);

struct WarpKernel {
  std::string_view name;  // "ref", "avx2", "avx512"
  void (*run)(const WarpArgs& args);
};

// The kernels this CPU can run, the reference first and the one warp_bilinear() runs last.
std::span<const WarpKernel> warp_kernels();

}  // namespace seatorch::kernels
