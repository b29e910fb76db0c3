// The warp kernels: the reference against exact expectations (the identity map and integer
// shifts give pixels back exactly; outside the source reads 0; a half-pixel shift averages
// neighbours), and every kernel this CPU runs against the reference on random maps and
// displacement fields, on several image sizes, within kWarpTolerance.
#include "seatorch/kernels/warp.hpp"

#include "seatorch/core/rng.hpp"
#include "seatorch/kernels/pixel_values.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace k = seatorch::kernels;
using seatorch::core::Rng;

namespace {

std::vector<std::uint8_t> random_image(std::size_t width, std::size_t height, Rng& rng) {
  std::vector<std::uint8_t> image(width * height);
  for (auto& p : image) p = static_cast<std::uint8_t>(rng.below(256));
  return image;
}


// `kernel` on the image with `map` and, when given, the fields (height, stride).
std::vector<float> warp(const k::WarpKernel& kernel, const std::vector<std::uint8_t>& image, std::size_t width,
                        std::size_t height, const k::WarpMap& map, const std::vector<float>* dx = nullptr,
                        const std::vector<float>* dy = nullptr, std::size_t stride = 0) {
  std::vector<float> out(width * height, -1.0f);
  std::vector<std::uint32_t> scratch(k::warp_scratch_words(width, height), 0xDEADBEEF);
  k::WarpArgs args;
  args.width = width;
  args.height = height;
  args.source = image.data();
  args.map = map;
  if (dx != nullptr) {
    args.dx = dx->data();
    args.dy = dy->data();
    args.field_stride = stride;
  }
  args.out = out.data();
  args.scratch = scratch.data();
  kernel.run(args);
  return out;
}

// The source pixel's value, 0 outside.
float pixel(const std::vector<std::uint8_t>& image, std::size_t width, std::size_t height, long x, long y) {
  const bool inside = x >= 0 && y >= 0 && x < static_cast<long>(width) && y < static_cast<long>(height);
  return inside ? k::pixel_value(image[static_cast<std::size_t>(y) * width + static_cast<std::size_t>(x)]) : 0.0f;
}

}  // namespace

TEST_CASE("every warp kernel gives the image back exactly under the identity map and integer shifts", "[kernels]") {
  Rng rng(11);
  const std::size_t width = 28;
  const std::size_t height = 28;
  const std::vector<std::uint8_t> image = random_image(width, height, rng);
  for (const k::WarpKernel& kernel : k::warp_kernels()) {
    INFO("kernel " << kernel.name);
    const std::vector<float> same = warp(kernel, image, width, height, k::WarpMap{});
    for (std::size_t i = 0; i < same.size(); ++i) {
      INFO("pixel " << i << ": " << same[i] << " vs " << k::pixel_value(image[i]));
      REQUIRE(same[i] == k::pixel_value(image[i]));
    }
    for (const auto& [sx, sy] : {std::pair{3L, 0L}, {-2L, 5L}, {0L, -1L}, {27L, 27L}, {-40L, 2L}}) {
      k::WarpMap shift;  // out(y, x) = source(y + sy, x + sx)
      shift.x0 = static_cast<float>(sx);
      shift.y0 = static_cast<float>(sy);
      const std::vector<float> out = warp(kernel, image, width, height, shift);
      for (std::size_t y = 0; y < height; ++y) {
        for (std::size_t x = 0; x < width; ++x) {
          const float expected = pixel(image, width, height, static_cast<long>(x) + sx, static_cast<long>(y) + sy);
          INFO("shift " << sx << "," << sy << " pixel (" << y << ", " << x << "): " << out[y * width + x] << " vs "
                        << expected);
          REQUIRE(out[y * width + x] == expected);
        }
      }
    }
  }
}

TEST_CASE("the warp reference interpolates bilinearly between the four neighbours", "[kernels]") {
  const std::vector<std::uint8_t> image{0, 100, 200, 50};  // 2 x 2
  k::WarpMap half;
  half.x0 = 0.5f;  // halfway to the right neighbour
  half.y0 = 0.25f;
  const std::vector<float> out = warp(k::warp_kernels().front(), image, 2, 2, half);
  // (0, 0): 0.75 * (0 + 100) / 2 + 0.25 * (200 + 50) / 2 = 68.75; (0, 1): the right half is outside.
  CHECK(out[0] == Approx(68.75 / 255.0).epsilon(1e-6));
  CHECK(out[1] == Approx((0.75 * 50.0 + 0.25 * 25.0) / 255.0).epsilon(1e-6));
  CHECK(out[2] == Approx(0.75 * 125.0 / 255.0).epsilon(1e-6));  // row 1: the row below is outside
}

TEST_CASE("every warp kernel matches the reference on random maps and displacement fields", "[kernels]") {
  Rng rng(7);
  const auto& kernels = k::warp_kernels();
  REQUIRE(kernels.front().name == "ref");
  for (const auto& [width, height] : {std::pair<std::size_t, std::size_t>{28, 28}, {17, 5}, {3, 40}, {1, 1}}) {
    const std::vector<std::uint8_t> image = random_image(width, height, rng);
    const std::size_t stride = width + 5;
    std::vector<float> dx(height * stride);
    std::vector<float> dy(height * stride);
    for (int trial = 0; trial < 20; ++trial) {
      k::WarpMap map;
      const double angle = rng.uniform(-3.2, 3.2);
      const double scale = rng.uniform(0.5, 1.6);
      map.xx = static_cast<float>(scale * std::cos(angle));
      map.xy = static_cast<float>(-scale * std::sin(angle));
      map.yx = static_cast<float>(scale * std::sin(angle));
      map.yy = static_cast<float>(scale * std::cos(angle));
      map.x0 = static_cast<float>(rng.uniform(-8.0, 8.0));
      map.y0 = static_cast<float>(rng.uniform(-8.0, 8.0));
      for (auto& v : dx) v = static_cast<float>(rng.uniform(-6.0, 6.0));
      for (auto& v : dy) v = static_cast<float>(rng.uniform(-6.0, 6.0));
      const std::vector<float> ref = warp(kernels.front(), image, width, height, map, &dx, &dy, stride);
      for (const k::WarpKernel& kernel : kernels.subspan(1)) {
        const std::vector<float> out = warp(kernel, image, width, height, map, &dx, &dy, stride);
        for (std::size_t i = 0; i < ref.size(); ++i) {
          INFO(kernel.name << " " << width << "x" << height << " trial " << trial << " pixel " << i << ": " << out[i]
                           << " vs ref " << ref[i]);
          REQUIRE(std::abs(out[i] - ref[i]) <= k::kWarpTolerance);
        }
      }
    }
  }
}
