// The warp reference, the neighbourhood words the kernels gather from, and the dispatch by
// CPU feature.
#include "seatorch/kernels/warp.hpp"

#include "seatorch/core/prefetch.hpp"
#include "seatorch/kernels/pixel_values.hpp"

#include "cpu_isa.hpp"
#include "warp_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace seatorch::kernels {

void warp_bilinear_ref(const WarpArgs& args) {
  const auto width = static_cast<int>(args.width);
  const auto height = static_cast<int>(args.height);
  const auto pixel = [&](int x, int y) {
    const bool inside = x >= 0 && x < width && y >= 0 && y < height;
    return inside ? static_cast<float>(args.source[y * width + x]) : 0.0f;
  };
  const WarpMap& m = args.map;
  // Clamping to [-1, size] changes no value (every neighbour there is outside, or has weight
  // 0) but bounds the floor for the kernels, which share these bounds.
  const float max_x = static_cast<float>(args.width);
  const float max_y = static_cast<float>(args.height);
  for (std::size_t y = 0; y < args.height; ++y) {
    const float fy_row = static_cast<float>(y);
    for (std::size_t x = 0; x < args.width; ++x) {
      const float fx_col = static_cast<float>(x);
      float sx = m.xx * fx_col + m.xy * fy_row + m.x0;
      float sy = m.yx * fx_col + m.yy * fy_row + m.y0;
      if (args.dx != nullptr) {
        sx = sx + args.dx[y * args.field_stride + x];
        sy = sy + args.dy[y * args.field_stride + x];
      }
      sx = std::min(std::max(sx, -1.0f), max_x);
      sy = std::min(std::max(sy, -1.0f), max_y);
      const float x_floor = std::floor(sx);
      const float y_floor = std::floor(sy);
      const float fx = sx - x_floor;
      const float fy = sy - y_floor;
      const int x0 = static_cast<int>(x_floor);
      const int y0 = static_cast<int>(y_floor);
      const float top = (1.0f - fx) * pixel(x0, y0) + fx * pixel(x0 + 1, y0);
      const float bottom = (1.0f - fx) * pixel(x0, y0 + 1) + fx * pixel(x0 + 1, y0 + 1);
      args.out[y * args.width + x] = ((1.0f - fy) * top + fy * bottom) / kPixelMax;
    }
  }
}

WarpScratch pad_warp_source(const WarpArgs& args) {
  const std::size_t stride = args.width + 3;
  WarpScratch scratch{args.scratch,
                      reinterpret_cast<std::uint8_t*>(args.scratch + warp_quad_words(args.width, args.height))};
  std::fill_n(scratch.padded, (args.height + 3) * stride + 64, std::uint8_t{0});
  for (std::size_t y = 0; y < args.height; ++y) {
    std::copy_n(args.source + y * args.width, args.width, scratch.padded + (y + 1) * stride + 1);
  }
  return scratch;
}

void pack_warp_quads(const WarpArgs& args, const WarpScratch& scratch) {
  const std::size_t stride = args.width + 3;
  const std::uint8_t* padded = scratch.padded;
  for (std::size_t i = 0; i < (args.height + 2) * stride; ++i) {
    scratch.quads[i] = static_cast<std::uint32_t>(padded[i]) | static_cast<std::uint32_t>(padded[i + 1]) << 8 |
                       static_cast<std::uint32_t>(padded[i + stride]) << 16 |
                       static_cast<std::uint32_t>(padded[i + stride + 1]) << 24;
  }
}

std::span<const WarpKernel> warp_kernels() {
  static const std::vector<WarpKernel> kernels = builds_this_cpu_runs<WarpKernel>({
    {Isa::kBaseline, {"ref", warp_bilinear_ref}},
#if defined(__x86_64__)
        {Isa::kAvx2Fma, {"avx2", warp_bilinear_avx2}}, {Isa::kAvx512f, {"avx512", warp_bilinear_avx512}},
#endif
  });
  return kernels;
}

void warp_bilinear(const WarpArgs& args) {
  static const auto run = warp_kernels().back().run;
  run(args);
}

void prefetch_warp_inputs(const WarpArgs& args) {
  core::prefetch_lines(args.source, args.width * args.height);
  if (args.dx == nullptr) return;
  const std::size_t row_bytes = args.width * sizeof(float);
  for (std::size_t y = 0; y < args.height; ++y) {
    core::prefetch_lines(args.dx + y * args.field_stride, row_bytes);
    core::prefetch_lines(args.dy + y * args.field_stride, row_bytes);
  }
}

}  // namespace seatorch::kernels
