// The matmul kernels compiled into this binary that this CPU can run.
//
// One x86-64 binary carries `ref`, `blocked`, `avx2` and `avx512`; an AArch64 one `ref`,
// `blocked` and `neon`. Which of them the CPU can run is decided once, at first use, by
// CPU feature detection (for AVX-512 that includes the OS saving its register state).
// This is the non-throwing, dependency-free half of kernel selection, shared with the
// AArch64 cross test; choosing by name with user-facing errors is in matmul.hpp.
#pragma once

#include "seatorch/kernels/matmul.hpp"
#include "seatorch/kernels/sparse_matmul.hpp"

#include <cstddef>
#include <span>
#include <string_view>

namespace seatorch::kernels {

struct KernelInfo {
  std::string_view name;
  // The product with its epilogue (matmul.hpp; Epilogue{} for none), which the fast kernels
  // apply as they store each tile and `ref` around its product.
  void (*matmul)(const MatmulArgs& args, const Epilogue& epilogue);
  // The product of a sparse A, summed as `matmul` sums the dense one (sparse_matmul.hpp),
  // and the compression that makes A, as sparse_rows.hpp's reference fills it.
  void (*sparse_matmul)(const SparseMatmulArgs& args, const Epilogue& epilogue);
  void (*compress_rows)(const float* a, std::size_t ld, std::size_t i0, std::size_t i1, SparseRows& out);
  // Runs `rounds` rounds of this ISA's widest FMAs on independent register accumulators and
  // returns the floating-point operations done; null for kernels without their own ISA.
  double (*fma_probe)(std::size_t rounds);
};

// The available kernels, most preferred last: ref, blocked, then the ISA kernels from the
// oldest to the newest ISA.
std::span<const KernelInfo> available_kernels();

// The kernel matmul() uses unless told otherwise: the last of available_kernels().
const KernelInfo& default_kernel();

// The available kernel with this name, or null when it is unknown or this CPU lacks its ISA.
const KernelInfo* find_kernel(std::string_view name);

}  // namespace seatorch::kernels
