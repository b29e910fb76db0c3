// The fast kernels this build compiles, per ISA file: the matmul, its sparse twin
// (sparse_matmul.hpp) and its FMA-throughput probe (fma_probe.hpp). Only the kernel registry calls them, and only after
// checking that the CPU has the ISA.
#pragma once

#include "seatorch/kernels/matmul.hpp"
#include "seatorch/kernels/sparse_matmul.hpp"

#include <cstddef>

namespace seatorch::kernels {

// Portable C++ (src/kernels/blocked.cpp): the packed driver with a plain-C++ micro-kernel.
void matmul_blocked(const MatmulArgs& args, const Epilogue& epilogue);
void sparse_matmul_blocked(const SparseMatmulArgs& args, const Epilogue& epilogue);
void compress_rows_blocked(const float* a, std::size_t ld, std::size_t i0, std::size_t i1, SparseRows& out);

#if defined(__x86_64__)
void matmul_avx2(const MatmulArgs& args, const Epilogue& epilogue);  // src/kernels/x86/avx2.cpp: AVX2 + FMA
double fma_probe_avx2(std::size_t rounds);
void sparse_matmul_avx2(const SparseMatmulArgs& args, const Epilogue& epilogue);
void compress_rows_avx2(const float* a, std::size_t ld, std::size_t i0, std::size_t i1, SparseRows& out);
void matmul_avx512(const MatmulArgs& args, const Epilogue& epilogue);  // src/kernels/x86/avx512.cpp: AVX-512F
double fma_probe_avx512(std::size_t rounds);
void sparse_matmul_avx512(const SparseMatmulArgs& args, const Epilogue& epilogue);
void compress_rows_avx512(const float* a, std::size_t ld, std::size_t i0, std::size_t i1, SparseRows& out);
#elif defined(__aarch64__)
void matmul_neon(const MatmulArgs& args, const Epilogue& epilogue);  // src/kernels/neon/neon.cpp: AArch64 NEON
double fma_probe_neon(std::size_t rounds);
void sparse_matmul_neon(const SparseMatmulArgs& args, const Epilogue& epilogue);
void compress_rows_neon(const float* a, std::size_t ld, std::size_t i0, std::size_t i1, SparseRows& out);
#endif

}  // namespace seatorch::kernels
