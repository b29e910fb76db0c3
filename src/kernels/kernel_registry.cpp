// The kernel table of this build's architecture, filtered by what the CPU supports.
// Deliberately free of fmt/spdlog (and of exceptions): the AArch64 cross test builds it.
#include "seatorch/kernels/kernel_registry.hpp"

#include "isa_kernels.hpp"

#include <vector>

namespace seatorch::kernels {
namespace {

struct Candidate {
  KernelInfo info;
  bool (*supported)();
};

bool always() { return true; }

#if defined(__x86_64__)
// __builtin_cpu_supports reads CPUID and, for AVX and AVX-512, checks with XGETBV that the
// OS saves the wider register state, so a "yes" means the instructions will not fault.
bool has_avx2_fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
bool has_avx512f() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
}
#endif

const Candidate kCandidates[] = {
    {{"ref", matmul_ref, nullptr}, always},
    {{"blocked", matmul_blocked, nullptr}, always},
#if defined(__x86_64__)
    {{"avx2", matmul_avx2, fma_probe_avx2}, has_avx2_fma},
    {{"avx512", matmul_avx512, fma_probe_avx512}, has_avx512f},
#elif defined(__aarch64__)
    {{"neon", matmul_neon, fma_probe_neon}, always},
#endif
};

}  // namespace

std::span<const KernelInfo> available_kernels() {
  static const std::vector<KernelInfo> kernels = [] {
    std::vector<KernelInfo> result;
    for (const Candidate& candidate : kCandidates) {
      if (candidate.supported()) result.push_back(candidate.info);
    }
    return result;
  }();
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
