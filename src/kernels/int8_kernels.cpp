// The int8 gemm reference kernel and the dispatch by CPU features.
#include "seatorch/kernels/int8_kernels.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/kernels/fixed_point.hpp"

#include "cpu_isa.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#if SEATORCH_X86_KERNELS
#include "x86/int8_kernels_x86.hpp"
#endif

namespace seatorch::kernels {
namespace {

std::vector<std::int8_t> pack_b_ref(std::span<const std::int8_t> b, std::size_t, std::size_t) {
  return {b.begin(), b.end()};
}

void gemm_ref(const Int8GemmArgs& g) {
  for (std::size_t i = 0; i < g.m; ++i) {
    for (std::size_t j = 0; j < g.n; ++j) {
      std::int32_t sum = 0;
      for (std::size_t p = 0; p < g.k; ++p)
        sum += std::int32_t{g.a[i * g.lda + p]} * std::int32_t{g.packed_b[j * g.k + p]};
      g.c[i * g.ldc + j] = sum;
    }
  }
}

void requantize_ref(const Int8RequantizeArgs& r) {
  for (std::size_t j = 0; j < r.n; ++j) {
    // The terms may wrap in int32; their sum (the accumulator) fits.
    const auto acc =
        static_cast<std::int32_t>(static_cast<std::uint32_t>(r.row_constant[j]) +
                                  static_cast<std::uint32_t>(r.dots[j]) - static_cast<std::uint32_t>(r.correction));
    const std::int8_t y = requantize(acc, r.multiplier[j], r.shift[j], r.zero_point, r.relu);
    if (r.y) r.y[j] = y;
    r.u[j] = static_cast<std::uint8_t>(y + 128);
  }
}

void layer_ref(const Int8LayerArgs& l) {
  std::vector<std::int32_t> dots(l.n);  // (n) of one image
  for (std::size_t s = 0; s < l.m; ++s) {
    const std::uint8_t* u = l.a + s * l.lda;
    std::int64_t sum_x = 0;  // sum_i x_i = sum_i (u_i - 128)
    for (std::size_t i = 0; i < l.k; ++i) sum_x += std::int64_t{u[i]} - 128;
    gemm_ref({1, l.n, l.k, u, l.lda, l.packed_b, dots.data(), l.n});
    requantize_ref({l.n, dots.data(), l.row_constant, static_cast<std::int32_t>(l.weight_zero_point * sum_x),
                    l.multiplier, l.shift, l.zero_point, l.relu, nullptr, l.u + s * l.ldu});
  }
}

constexpr Int8Kernel kRef{.name = "ref",
                          .pack_b = pack_b_ref,
                          .gemm = gemm_ref,
                          .requantize = requantize_ref,
                          .layer = layer_ref,
                          .tile_images = 1,
                          .dot_probe = nullptr};

#if SEATORCH_X86_KERNELS
template <std::size_t Rows>
std::vector<std::int8_t> pack_rows(std::span<const std::int8_t> b, std::size_t n, std::size_t k) {
  return x86::pack_b_blocked(b, n, k, Rows);
}

template <std::size_t Rows>
std::vector<std::int8_t> pack_rows_int16(std::span<const std::int8_t> b, std::size_t n, std::size_t k) {
  return x86::pack_b_blocked_int16(b, n, k, Rows);
}

constexpr Int8Kernel kAvx2{.name = "avx2",
                           .pack_b = pack_rows_int16<x86::kAvx2Rows>,
                           .gemm = x86::gemm_avx2,
                           .requantize = x86::requantize_avx2,
                           .layer = x86::layer_avx2,
                           .tile_images = x86::kAvx2TileImages,
                           .dot_probe = x86::dot_probe_avx2};
constexpr Int8Kernel kAvx512Bw{.name = "avx512bw",
                               .pack_b = pack_rows_int16<x86::kAvx512BwRows>,
                               .gemm = x86::gemm_avx512bw,
                               .requantize = x86::requantize_avx512,
                               .layer = x86::layer_avx512bw,
                               .tile_images = x86::kAvx512BwTileImages,
                               .dot_probe = x86::dot_probe_avx512bw};
constexpr Int8Kernel kAvxVnni{.name = "avxvnni",
                              .pack_b = pack_rows<x86::kAvxVnniRows>,
                              .gemm = x86::gemm_avxvnni,
                              .requantize = x86::requantize_avx2,
                              .layer = x86::layer_avxvnni,
                              .tile_images = x86::kAvxVnniTileImages,
                              .dot_probe = x86::dot_probe_avxvnni};
constexpr Int8Kernel kAvx512Vnni{.name = "avx512vnni",
                                 .pack_b = pack_rows<x86::kAvx512Rows>,
                                 .gemm = x86::gemm_avx512vnni,
                                 .requantize = x86::requantize_avx512,
                                 .layer = x86::layer_avx512vnni,
                                 .tile_images = x86::kAvx512TileImages,
                                 .dot_probe = x86::dot_probe_avx512vnni};
constexpr Int8Kernel kAmx{.name = "amx",
                          .pack_b = x86::pack_b_tiles,
                          .gemm = x86::gemm_amx,
                          .requantize = x86::requantize_avx512,
                          .layer = x86::layer_amx,
                          .tile_images = x86::kAmxTileImages,
                          .dot_probe = x86::dot_probe_amx};
#endif

// The kernels this CPU runs, fastest first ("auto" takes the first).
const std::vector<const Int8Kernel*>& runnable() {
  static const std::vector<const Int8Kernel*> kernels = builds_this_cpu_runs<const Int8Kernel*>({
#if SEATORCH_X86_KERNELS
    {Isa::kAmxInt8, &kAmx}, {Isa::kAvx512Vnni, &kAvx512Vnni}, {Isa::kAvxVnni, &kAvxVnni}, {Isa::kAvx512Bw, &kAvx512Bw},
        {Isa::kAvx2, &kAvx2},
#endif
        {Isa::kBaseline, &kRef},
  });
  return kernels;
}

}  // namespace

const Int8Kernel& int8_kernel_ref() { return kRef; }

std::vector<std::string> int8_kernel_names() {
  std::vector<std::string> names;
  for (const Int8Kernel* kernel : runnable()) names.emplace_back(kernel->name);
  return names;
}

const Int8Kernel& int8_kernel(std::string_view name) {
  for (const Int8Kernel* kernel : runnable()) {
    if (name == "auto" || name == kernel->name) return *kernel;
  }
  throw core::option_error("int8 kernel", "int8 kernel '{}' is not available on this CPU; choose one of: auto, {}",
                           name, fmt::join(int8_kernel_names(), ", "));
}

}  // namespace seatorch::kernels
