// The warp kernels beside the reference (kernels/warp.hpp), and the source layout they share.
// The kernels are defined in files compiled with their ISA flags; warp.cpp calls one only
// after checking the CPU. The shared helpers are plain C++ in warp.cpp, so no code shared
// with the rest of the program is ever compiled for a wider ISA.
#pragma once

#include "seatorch/kernels/warp.hpp"

#include <cstdint>

namespace seatorch::kernels {

// The layout in args.scratch, with stride = width + 3:
//   quads  (height + 2, stride) words, padded up to warp_quad_words(): word r * stride + c
//          packs the padded pixels (r, c), (r, c + 1), (r + 1, c), (r + 1, c + 1) in bytes
//          0, 1, 2 and 3, that is the source
//          pixels (r - 1, c - 1), (r - 1, c), (r, c - 1), (r, c), 0 outside the source. A
//          position clamped to [-1, size] on both axes with floor (x0, y0) finds its four
//          neighbours in word (y0 + 1) * stride + x0 + 1.
//   padded (height + 3, stride) bytes and 64 more: the source with a zero border, pixel
//          (y, x) at (y + 1) * stride + x + 1.
struct WarpScratch {
  std::uint32_t* quads;
  std::uint8_t* padded;
};

// Writes the padded source (and zeroes the 64 bytes after it) and returns the layout; the
// caller then packs the quads, the reference way (pack_warp_quads) or with its own vectors
// (which may write up to warp_quad_words() of them).
WarpScratch pad_warp_source(const WarpArgs& args);
void pack_warp_quads(const WarpArgs& args, const WarpScratch& scratch);

#if defined(__x86_64__)
void warp_bilinear_avx2(const WarpArgs& args);    // src/kernels/x86/warp_avx2.cpp: AVX2 + FMA CPUs
void warp_bilinear_avx512(const WarpArgs& args);  // src/kernels/x86/warp_avx512.cpp: AVX-512F
#endif

}  // namespace seatorch::kernels
