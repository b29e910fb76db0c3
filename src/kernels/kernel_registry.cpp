// The kernel table of this build's architecture, filtered by what the CPU supports.
// Deliberately free of fmt/spdlog (and of exceptions): the AArch64 cross test builds it.
#include "seatorch/kernels/kernel_registry.hpp"

#include "cpu_isa.hpp"
#include "epilogue_rows.hpp"
#include "isa_kernels.hpp"

#include <vector>

namespace seatorch::kernels {
namespace {

// The reference products with the epilogue as Epilogue specifies it: C holds the bias rows,
// the product is accumulated onto them, and the clamp follows. The fast kernels' fused
// epilogues are tested against this order (tests/kernels).
void matmul_ref_epilogue(const MatmulArgs& args, const Epilogue& epilogue) {
  with_epilogue(args, args.shape.m, args.shape.n, epilogue, matmul_ref);
}

void sparse_matmul_ref_epilogue(const SparseMatmulArgs& args, const Epilogue& epilogue) {
  with_epilogue(args, args.a->rows, args.n, epilogue, sparse_matmul_ref);
}

}  // namespace

std::span<const KernelInfo> available_kernels() {
  static const std::vector<KernelInfo> kernels = builds_this_cpu_runs<KernelInfo>({
    {Isa::kBaseline, {"ref", matmul_ref_epilogue, sparse_matmul_ref_epilogue, compress_rows_ref, nullptr}},
        {Isa::kBaseline, {"blocked", matmul_blocked, sparse_matmul_blocked, compress_rows_blocked, nullptr}},
#if defined(__x86_64__)
        {Isa::kAvx2Fma, {"avx2", matmul_avx2, sparse_matmul_avx2, compress_rows_avx2, fma_probe_avx2}},
        {Isa::kAvx512f, {"avx512", matmul_avx512, sparse_matmul_avx512, compress_rows_avx512, fma_probe_avx512}},
#elif defined(__aarch64__)
        // NEON is in AArch64's baseline
        {Isa::kBaseline, {"neon", matmul_neon, sparse_matmul_neon, compress_rows_neon, fma_probe_neon}},
#endif
  });
  return kernels;
}

const KernelInfo& default_kernel() { return available_kernels().back(); }

const KernelInfo* find_kernel(std::string_view name) {
  for (const KernelInfo& kernel : available_kernels()) {
    if (kernel.name == name) return &kernel;
  }
  return nullptr;
}

}  // namespace seatorch::kernels
