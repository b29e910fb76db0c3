// An Epilogue around a block of C, as passes of their own: the bias row copied into every row
// before the product accumulates onto it, and the ReLU after. This is the specification: the
// `ref` kernel composes it (kernel_registry.cpp), the fast kernels apply the same operations
// in their tiles (micro_kernel.hpp, sparse_driver.hpp), and a product with no depth is left
// as these passes leave it (gemm_support.cpp). Inline and not templates: for code compiled
// without ISA flags only, never in the drivers the ISA files instantiate.
// Deliberately not here: the products themselves, threads.
#pragma once

#include "seatorch/kernels/matmul.hpp"

#include <algorithm>
#include <cstddef>

namespace seatorch::kernels {

// Each of the (m, n) block's rows (row stride ldc) = bias (n).
inline void start_from_bias(const float* bias, float* c, std::size_t ldc, std::size_t m, std::size_t n) {
  for (std::size_t i = 0; i < m; ++i) std::copy_n(bias, n, c + i * ldc);
}

// max(c, 0) over the (m, n) block: std::max keeps a NaN, and -0 as -0.
inline void clamp_at_zero(float* c, std::size_t ldc, std::size_t m, std::size_t n) {
  for (std::size_t i = 0; i < m; ++i) {
    float* row = c + i * ldc;
    for (std::size_t j = 0; j < n; ++j) row[j] = std::max(row[j], 0.0f);
  }
}

// Runs product(args) on the (m, n) block of C that args describe (args.c, args.ldc), with
// the epilogue around it: C starts from the bias row, the product accumulating onto it, and
// is clamped at zero afterwards. Args is MatmulArgs or SparseMatmulArgs.
template <class Args, class Product>
void with_epilogue(Args args, std::size_t m, std::size_t n, const Epilogue& epilogue, Product&& product) {
  if (epilogue.bias != nullptr) {
    start_from_bias(epilogue.bias, args.c, args.ldc, m, n);
    args.accumulate = true;
  }
  product(args);
  if (epilogue.relu) clamp_at_zero(args.c, args.ldc, m, n);
}

}  // namespace seatorch::kernels
