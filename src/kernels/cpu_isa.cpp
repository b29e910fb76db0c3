// The CPU's instruction sets (cpu_isa.hpp). Free of fmt and exceptions, like the kernel
// registry: the AArch64 cross test builds it.
#include "cpu_isa.hpp"

namespace seatorch::kernels {

bool cpu_runs(Isa isa) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  switch (isa) {
    case Isa::kBaseline:
      return true;
    case Isa::kAvx2:
      return __builtin_cpu_supports("avx2");
    case Isa::kAvx2Fma:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::kAvxVnni:
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avxvnni");
    case Isa::kAvx512f:
      return __builtin_cpu_supports("avx512f");
    case Isa::kAvx512Bw:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
    case Isa::kAvx512Vnni:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vnni");
  }
  return false;
#else
  return isa == Isa::kBaseline;
#endif
}

}  // namespace seatorch::kernels
