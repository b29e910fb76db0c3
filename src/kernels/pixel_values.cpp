// The pixel loop's reference build (the baseline ISA) and the dispatch by CPU feature.
#include "seatorch/kernels/pixel_values.hpp"

#include "pixel_values_loop.hpp"

#include <vector>

namespace seatorch::kernels {

void pixel_values_ref(std::span<const std::uint8_t> pixels, std::span<float> out) { pixel_loop(pixels, out); }

namespace {

std::vector<PixelKernel> available() {
  std::vector<PixelKernel> kernels{{"ref", pixel_values_ref}};
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) kernels.push_back({"avx2", pixel_values_avx2});
#endif
  return kernels;
}

}  // namespace

std::span<const PixelKernel> pixel_kernels() {
  static const std::vector<PixelKernel> kernels = available();
  return kernels;
}

void pixel_values(std::span<const std::uint8_t> pixels, std::span<float> out) {
  static const auto run = pixel_kernels().back().run;
  run(pixels, out);
}

}  // namespace seatorch::kernels
