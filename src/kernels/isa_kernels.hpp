// The fast kernels this build compiles, one pair per ISA file: the matmul and its
// FMA-throughput probe (fma_probe.hpp). Only the kernel registry calls them, and only after
// checking that the CPU has the ISA.
#pragma once

#include "seatorch/kernels/matmul.hpp"

#include <cstddef>

namespace seatorch::kernels {

// Portable C++ (src/kernels/blocked.cpp): the packed driver with a plain-C++ micro-kernel.
void matmul_blocked(const MatmulArgs& args);

#if defined(__x86_64__)
void matmul_avx2(const MatmulArgs& args);  // src/kernels/x86/avx2.cpp: AVX2 + FMA
double fma_probe_avx2(std::size_t rounds);
void matmul_avx512(const MatmulArgs& args);  // src/kernels/x86/avx512.cpp: AVX-512F
double fma_probe_avx512(std::size_t rounds);
#elif defined(__aarch64__)
void matmul_neon(const MatmulArgs& args);  // src/kernels/neon/neon.cpp: AArch64 NEON
double fma_probe_neon(std::size_t rounds);
#endif

}  // namespace seatorch::kernels
