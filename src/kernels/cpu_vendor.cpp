// The CPU's vendor (cpu_vendor.hpp). Free of fmt and exceptions, like cpu_isa.cpp: the
// AArch64 cross test builds it.
#include "cpu_vendor.hpp"

#if defined(__x86_64__)
#include <cpuid.h>

#include <cstring>
#endif

namespace seatorch::kernels {
namespace {

CpuVendor ask_vendor() {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(0, &eax, &ebx, &ecx, &edx) == 0) return CpuVendor::kOther;
  char name[12];  // EBX, EDX, ECX: "GenuineIntel", "AuthenticAMD"
  std::memcpy(name, &ebx, 4);
  std::memcpy(name + 4, &edx, 4);
  std::memcpy(name + 8, &ecx, 4);
  if (std::memcmp(name, "GenuineIntel", 12) == 0) return CpuVendor::kIntel;
  if (std::memcmp(name, "AuthenticAMD", 12) == 0) return CpuVendor::kAmd;
#endif
  return CpuVendor::kOther;
}

}  // namespace

CpuVendor cpu_vendor() {
  static const CpuVendor vendor = ask_vendor();
  return vendor;
}

}  // namespace seatorch::kernels
