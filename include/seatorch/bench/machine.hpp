// The CPU a benchmark's figures were measured on, named so that a reader can tell it from
// theirs: the model name the OS reports and, on x86, its family and model numbers (a virtual
// machine often reports only "AMD EPYC", which covers several generations), and the logical
// CPUs this process may use. Every `seatorch bench` mode prints it beside its peak.
// Deliberately not here: feature detection (kernels/kernel_registry), clock rates, caches.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace seatorch::bench {

// The CPU described by the text of a Linux /proc/cpuinfo (its first processor's fields), e.g.
// "AMD EPYC (family 25, model 17), 2 logical CPUs"; on AArch64, which reports no model name,
// "CPU implementer 0x41, part 0xd0c, ..."; "an unnamed CPU, ..." when the text names none.
std::string describe_cpu(std::string_view cpuinfo, std::size_t logical_cpus);

// describe_cpu() of this machine (its /proc/cpuinfo, or none where there is no such file),
// read once.
const std::string& this_cpu();

}  // namespace seatorch::bench
