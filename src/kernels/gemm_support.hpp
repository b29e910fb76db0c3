// The non-template parts of the GEMM driver, compiled once without ISA flags: the
// per-thread packing buffers, the transposed problem and the degenerate shapes (m, n or k
// zero).
//
// They live in their own file so that the ISA files, which instantiate the driver template
// with their own flags, share no inline code with each other (see micro_kernel.hpp).
// Deliberately not here: anything that loops over matrix elements in the hot path.
#pragma once

#include "seatorch/kernels/matmul.hpp"

#include <cstddef>

namespace seatorch::kernels {

enum class PackSlot { kA, kB };

// A 64-byte-aligned scratch buffer of at least `floats` floats, owned by the calling thread
// and reused across calls (one per slot), so a matmul allocates only when it outgrows it.
float* pack_buffer(PackSlot slot, std::size_t floats);

// The problem of Cᵀ = op(B)ᵀ op(A)ᵀ, for the driver to store into C through transposed tiles.
MatmulArgs transposed_problem(const MatmulArgs& args);

// The (m, n) block of C (row stride ldc) as a product with no depth leaves it: the bias rows or
// zero, or as it was when accumulating; then clamped at zero for a ReLU. Here, compiled
// without ISA flags, rather than inline in the drivers the ISA files instantiate.
void epilogue_without_product(const Epilogue& epilogue, bool accumulate, float* c, std::size_t ldc, std::size_t m,
                              std::size_t n);

// Handles the shapes with nothing to multiply: m or n zero (nothing to do) and k zero
// (epilogue_without_product). Returns true when it handled the call.
bool matmul_degenerate(const MatmulArgs& args, const Epilogue& epilogue);

}  // namespace seatorch::kernels
