// The CPU's instruction sets (cpu_isa.hpp). Free of fmt and exceptions, like the kernel
// registry: the AArch64 cross test builds it.
#include "cpu_isa.hpp"

#if defined(__x86_64__)
#include <cpuid.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#endif

namespace seatorch::kernels {
namespace {

#if defined(__x86_64__)
// AMX-TILE and AMX-INT8 in CPUID, the tile state enabled in XCR0, and Linux's permission for
// this process to use it (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA), Linux 5.16+).
bool amx_int8_granted() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  constexpr unsigned kAmxTile = 1u << 24, kAmxInt8 = 1u << 25;  // CPUID.(7,0):EDX
  if ((edx & kAmxTile) == 0 || (edx & kAmxInt8) == 0) return false;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0 || (ecx & (1u << 27)) == 0) return false;  // OSXSAVE
  unsigned xcr0_low = 0, xcr0_high = 0;
  __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
  constexpr unsigned kTileState = (1u << 17) | (1u << 18);  // XTILECFG and XTILEDATA
  if ((xcr0_low & kTileState) != kTileState) return false;
#if defined(__linux__)
  constexpr long kReqXcompPerm = 0x1023;
  constexpr long kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kReqXcompPerm, kXfeatureXtiledata) == 0;
#else
  return false;
#endif
}
#endif

}  // namespace

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
    case Isa::kAmxInt8: {
      static const bool granted = amx_int8_granted();  // asked once per process
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && granted;
    }
  }
  return false;
#else
  return isa == Isa::kBaseline;
#endif
}

}  // namespace seatorch::kernels
