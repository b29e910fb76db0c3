// The fast kernels this build compiles, per ISA file: the matmul, its sparse twin
// (sparse_matmul.hpp) and its FMA-throughput probe (fma_probe.hpp). Only the kernel registry calls them, and only after
// checking that the CPU has the ISA.
#pragma once

#include "seatorch/kernels/matmul.hpp"
#include "seatorch/kernels/sparse_matmul.hpp"

#include <cstddef>

namespace seatorch::kernels {

// Portable C++ (src/kernels/blocked.cpp): the packed driver with a plain-C++ micro-kernel.
void matmul_blocked(const MatmulArgs& args);
void sparse_matmul_blocked(const SparseMatmulArgs& args);

#if defined(__x86_64__)
void matmul_avx2(const MatmulArgs& args);  // src/kernels/x86/avx2.cpp: AVX2 + FMA
double fma_probe_avx2(std::size_t rounds);
void sparse_matmul_avx2(const SparseMatmulArgs& args);
void matmul_avx512(const MatmulArgs& args);  // src/kernels/x86/avx512.cpp: AVX-512F
double fma_probe_avx512(std::size_t rounds);
void sparse_matmul_avx512(const SparseMatmulArgs& args);
#elif defined(__aarch64__)
void matmul_neon(const MatmulArgs& args);  // src/kernels/neon/neon.cpp: AArch64 NEON
double fma_probe_neon(std::size_t rounds);
void sparse_matmul_neon(const SparseMatmulArgs& args);
#endif

}  // namespace seatorch::kernels
