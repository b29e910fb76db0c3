// The CPUs this process may run on, and pinning a thread to one (bench/cpu_set.hpp).
#include "seatorch/bench/cpu_set.hpp"

#include <pthread.h>
#include <sched.h>

namespace seatorch::bench {

std::vector<std::size_t> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<std::size_t> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (std::size_t cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

bool pin_this_thread(std::size_t cpu) {
  if (cpu >= CPU_SETSIZE) return false;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

}  // namespace seatorch::bench
