// The vector warp kernels' loops, written once over a vector policy and compiled once per ISA
// (warp_avx2.cpp, warp_avx512.cpp): the neighbourhood words packed kLanes at a time
// (pack_warp_quads), then kLanes output pixels of a row per step, the four bilinear
// neighbours of each fetched by one gather of its word (warp_kernels.hpp). The same float
// operations in the same order as warp_bilinear_ref (kernels/warp.hpp), so the same bits; a
// row's tail is masked. Everything here has internal linkage and uses no standard-library
// template, so no copy built with one file's ISA flags can serve a CPU without that ISA.
// Deliberately not here: the intrinsics, which each policy names:
//
//   struct V {
//     static constexpr std::size_t kLanes;
//     using F;                                   // kLanes floats
//     using I;                                   // kLanes int32
//     using Mask;                                // which lanes a masked access touches
//     static Mask first(std::size_t left);       // lanes 0 .. min(left, kLanes) - 1
//     static F iota();                           // 0, 1, .., kLanes - 1
//     static F splat(float v);
//     static I splat(std::int32_t v);
//     static F add(F a, F b); sub; mul; div; min; max;
//     static F floor(F a);
//     static I add(I a, I b); mul (the low 32 bits); bit_and; bit_or;
//     template <int kBits> static I shift_left(I a); shift_right (logical);
//     static I truncate(F a);                    // toward zero
//     static F to_float(I a);
//     static F load(const float* p, Mask m);     // 0 in the lanes not in m
//     static void store(float* p, Mask m, F a);  // only the lanes in m
//     static I gather(const std::uint32_t* words, I at, Mask m);  // words[at], 0 outside m
//     static I widen(const std::uint8_t* p);     // kLanes bytes, zero-extended
//     static void store(std::uint32_t* p, I a);
//   };
#pragma once

#include "../warp_kernels.hpp"
#include "seatorch/kernels/pixel_values.hpp"

#include <cstddef>
#include <cstdint>

namespace seatorch::kernels {
namespace {

// pack_warp_quads, kLanes words per step (the padded bytes run 64 past the last word's reads).
template <class V>
void pack_quads(const WarpArgs& args, const WarpScratch& scratch) {
  const std::size_t stride = args.width + 3;
  const std::uint8_t* padded = scratch.padded;
  for (std::size_t i = 0; i < (args.height + 2) * stride; i += V::kLanes) {
    const typename V::I low = V::bit_or(V::widen(padded + i), V::template shift_left<8>(V::widen(padded + i + 1)));
    const typename V::I high = V::bit_or(V::template shift_left<16>(V::widen(padded + i + stride)),
                                         V::template shift_left<24>(V::widen(padded + i + stride + 1)));
    V::store(scratch.quads + i, V::bit_or(low, high));
  }
}

template <class V>
void warp_rows(const WarpArgs& args) {
  using F = typename V::F;
  using I = typename V::I;
  const WarpScratch scratch = pad_warp_source(args);
  pack_quads<V>(args, scratch);
  const WarpMap& m = args.map;
  const auto stride = static_cast<std::int32_t>(args.width) + 3;
  const F lane = V::iota();
  const F one = V::splat(1.0f);
  const F low = V::splat(-1.0f);
  const F max_x = V::splat(static_cast<float>(args.width));
  const F max_y = V::splat(static_cast<float>(args.height));
  const F xx = V::splat(m.xx);
  const F yx = V::splat(m.yx);
  const F x0 = V::splat(m.x0);
  const F y0 = V::splat(m.y0);
  const F scale = V::splat(kPixelMax);
  const I vstride = V::splat(stride);
  const I border = V::splat(stride + 1);  // the word of floor position (0, 0)
  const I byte = V::splat(std::int32_t{0xFF});
  for (std::size_t y = 0; y < args.height; ++y) {
    const float fy_row = static_cast<float>(y);
    const F xy_y = V::splat(m.xy * fy_row);
    const F yy_y = V::splat(m.yy * fy_row);
    for (std::size_t x = 0; x < args.width; x += V::kLanes) {
      const typename V::Mask mask = V::first(args.width - x);
      const F fx_col = V::add(V::splat(static_cast<float>(x)), lane);
      F sx = V::add(V::add(V::mul(xx, fx_col), xy_y), x0);
      F sy = V::add(V::add(V::mul(yx, fx_col), yy_y), y0);
      if (args.dx != nullptr) {
        const std::size_t at = y * args.field_stride + x;
        sx = V::add(sx, V::load(args.dx + at, mask));
        sy = V::add(sy, V::load(args.dy + at, mask));
      }
      sx = V::min(V::max(sx, low), max_x);
      sy = V::min(V::max(sy, low), max_y);
      const F x_floor = V::floor(sx);
      const F y_floor = V::floor(sy);
      const F fx = V::sub(sx, x_floor);
      const F fy = V::sub(sy, y_floor);
      const I at = V::add(V::add(V::mul(V::truncate(y_floor), vstride), V::truncate(x_floor)), border);
      // One gather of the four neighbours' bytes per pixel (warp_kernels.hpp).
      const I q = V::gather(scratch.quads, at, mask);
      const F p00 = V::to_float(V::bit_and(q, byte));
      const F p01 = V::to_float(V::bit_and(V::template shift_right<8>(q), byte));
      const F p10 = V::to_float(V::bit_and(V::template shift_right<16>(q), byte));
      const F p11 = V::to_float(V::template shift_right<24>(q));
      const F wx = V::sub(one, fx);
      const F top = V::add(V::mul(wx, p00), V::mul(fx, p01));
      const F bottom = V::add(V::mul(wx, p10), V::mul(fx, p11));
      const F v = V::add(V::mul(V::sub(one, fy), top), V::mul(fy, bottom));
      V::store(args.out + y * args.width + x, mask, V::div(v, scale));
    }
  }
}

}  // namespace
}  // namespace seatorch::kernels
