// The pixel loop's reference build (the baseline ISA) and the dispatch by CPU feature.
#include "seatorch/kernels/pixel_values.hpp"

#include "cpu_isa.hpp"
#include "pixel_values_loop.hpp"

#include <vector>

namespace seatorch::kernels {

void pixel_values_ref(std::span<const std::uint8_t> pixels, std::span<float> out) { pixel_loop(pixels, out); }

std::span<const PixelKernel> pixel_kernels() {
  static const std::vector<PixelKernel> kernels = builds_this_cpu_runs<PixelKernel>({
    {Isa::kBaseline, {"ref", pixel_values_ref}},
#if defined(__x86_64__)
        {Isa::kAvx2Fma, {"avx2", pixel_values_avx2}},
#endif
  });
  return kernels;
}

void pixel_values(std::span<const std::uint8_t> pixels, std::span<float> out) {
  static const auto run = pixel_kernels().back().run;
  run(pixels, out);
}

}  // namespace seatorch::kernels
