// Which instruction sets this CPU can run, asked in one place, and the one way a kernel
// family (matmul, int8, warp, the optimizer and pixel loops) lists the builds it may call.
//
// __builtin_cpu_supports reads CPUID and, for AVX and AVX-512, checks with XGETBV that the
// OS saves the wider register state, so a "yes" means the instructions will not fault. AMX
// (which GCC 12's __builtin_cpu_supports does not report) is asked of CPUID and XGETBV here,
// and Linux must also grant each process the 8 KiB tile state before its first tile
// instruction: cpu_runs(kAmxInt8) asks for it (arch_prctl), once, and says yes only if granted.
// Compiled without ISA flags, and included only by files compiled without them: the template
// below must never be instantiated with an ISA file's flags (see micro_kernel.hpp).
// Deliberately not here: choosing among the builds (each family runs its last, the widest),
// names for the user, anything per call.
#pragma once

#include <initializer_list>
#include <vector>

namespace seatorch::kernels {

enum class Isa {
  kBaseline,    // what the build targets: every CPU it runs on
  kAvx2,        // x86 AVX2
  kAvx2Fma,     // x86 AVX2 with FMA3
  kAvxVnni,     // x86 AVX2 with AVX-VNNI (vpdpbusd on ymm, VEX-encoded)
  kAvx512f,     // x86 AVX-512F
  kAvx512Bw,    // x86 AVX-512F and BW
  kAvx512Vnni,  // x86 AVX-512F, BW and VNNI
  kAmxInt8,     // x86 AMX-TILE and AMX-INT8 with AVX-512F and BW, the tile state granted by Linux
};

// Whether this CPU runs code built for `isa`; false for another architecture's.
bool cpu_runs(Isa isa);

template <class Build>
struct IsaBuild {
  Isa isa;
  Build build;
};

// The builds this CPU runs, in the order given (a family lists its reference first and its
// widest last).
template <class Build>
std::vector<Build> builds_this_cpu_runs(std::initializer_list<IsaBuild<Build>> builds) {
  std::vector<Build> runnable;
  for (const IsaBuild<Build>& b : builds) {
    if (cpu_runs(b.isa)) runnable.push_back(b.build);
  }
  return runnable;
}

}  // namespace seatorch::kernels
