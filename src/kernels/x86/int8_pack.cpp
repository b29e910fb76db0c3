// Weight packing for the x86 int8 gemm kernels: plain C++, compiled without ISA flags.
#include "int8_kernels_x86.hpp"

namespace seatorch::kernels::x86 {

std::vector<std::int8_t> pack_b_blocked(std::span<const std::int8_t> b, std::size_t n, std::size_t k,
                                        std::size_t rows) {
  const std::size_t k4 = (k + 3) / 4;
  const std::size_t blocks = (n + rows - 1) / rows;
  std::vector<std::int8_t> packed(blocks * k4 * rows * 4, 0);  // (blocks, k4, rows, 4)
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t p = 0; p < k; ++p)
      packed[((j / rows) * k4 + p / 4) * rows * 4 + (j % rows) * 4 + p % 4] = b[j * k + p];
  }
  return packed;
}

}  // namespace seatorch::kernels::x86
