// The CPUs this process may run on, and pinning a thread to one of them: what the benches
// that measure one CPU, or a pair, stand on (cpu_distance.hpp, cpu_speed.hpp).
// Deliberately not here: pinning the worker pool's threads (core/parallel.hpp leaves their
// placement to the OS), the cache topology the OS reports (a guest's is made up).
#pragma once

#include <cstddef>
#include <vector>

namespace seatorch::bench {

// The CPUs this process may run on, in increasing order (its affinity mask).
std::vector<std::size_t> allowed_cpus();

// Pins the calling thread to `cpu`; false when it cannot be (no such CPU, or one outside the
// affinity mask).
bool pin_this_thread(std::size_t cpu);

}  // namespace seatorch::bench
