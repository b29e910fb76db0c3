// Which company designed this CPU, asked once (CPUID leaf 0's vendor string). A few of the
// kernels' choices that change no bit, only which memory the core reads (whether a large
// product copies its operands), were measured to go opposite ways on Intel and AMD cores.
// Free of templates and ISA intrinsics, so the ISA files may include it, unlike cpu_isa.hpp.
// Deliberately not here: the instruction sets (cpu_isa.hpp), models and cache sizes.
#pragma once

namespace seatorch::kernels {

enum class CpuVendor { kOther, kIntel, kAmd };

// kOther on other architectures and unknown vendors.
CpuVendor cpu_vendor();

}  // namespace seatorch::kernels
