// The dispatch of pixel_values (kernels/pixels.hpp): the AVX2 kernel for whole groups of
// eight where the CPU has it, the specification for the rest.
#include "seatorch/kernels/pixels.hpp"

#include "pixel_kernels.hpp"

#include "seatorch/data/dataset.hpp"

#include <algorithm>
#include <cassert>

namespace seatorch::kernels {
namespace {

bool use_avx2() {
#if defined(__x86_64__)
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return has;
#else
  return false;
#endif
}

}  // namespace

void pixel_values(std::span<const std::uint8_t> pixels, std::span<float> out) {
  assert(pixels.size() == out.size());
  std::size_t done = 0;
#if defined(__x86_64__)
  if (use_avx2()) {
    done = pixels.size() / kPixelsPerAvx2Step * kPixelsPerAvx2Step;
    pixel_values_avx2(pixels.data(), done, out.data());
  }
#endif
  data::pixel_values(pixels.subspan(done), out.subspan(done));
}

void copy_features(const data::Dataset& data, std::size_t first, std::size_t count, std::span<float> out) {
  assert(first + count <= data.size() && out.size() == count * data.features);
  (void)count;  // the size of `out` says it
  const std::size_t begin = first * data.features;
  if (data.is_image()) {
    pixel_values(std::span<const std::uint8_t>(data.pixels).subspan(begin, out.size()), out);
  } else {
    std::copy_n(data.x.begin() + static_cast<std::ptrdiff_t>(begin), out.size(), out.begin());
  }
}

std::string_view pixel_kernel() { return use_avx2() ? "avx2" : "ref"; }

}  // namespace seatorch::kernels
