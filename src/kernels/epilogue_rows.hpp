// The two halves of an Epilogue around a block of C, shared by matmul() and sparse_matmul()
// so that a fused product ends in the same bits whichever of them ran it: the bias row
// copied into every row before the product accumulates onto it, and the ReLU after.
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

}  // namespace seatorch::kernels
