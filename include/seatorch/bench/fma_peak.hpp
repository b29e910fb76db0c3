// The FMA peak every bench's percentages are of: each ISA's probe of FMAs on registers alone
// (kernels' fma_probe), the fastest of them, and how many cores' worth a run of several
// threads can have. Deliberately not here: what is measured against it (the benches).
#pragma once

#include "seatorch/bench/timing.hpp"

#include <cstddef>
#include <optional>
#include <string>

namespace seatorch::bench {

// The FMA throughput this core reaches in registers alone, with the best ISA it has.
struct FmaPeak {
  std::string isa;  // the kernel whose probe was fastest, e.g. "avx512"
  double gflops = 0.0;
};

// Runs each available ISA's FMA probe for about `seconds` (the best of ten short runs, timed
// with `clock`) and returns the fastest; nullopt when no kernel of this CPU has a probe. The
// probe runs on one core; the peak of `threads` threads is that times the cores they can use
// (the cores are alike, each with its own FMA units; threads beyond the cores add none).
std::optional<FmaPeak> measure_fma_peak(double seconds = 0.05, TimingClock clock = TimingClock::kThreadCpu,
                                        std::size_t threads = 1);

// How many cores' FMA units `threads` threads can use: the factor measure_fma_peak scales its
// one-core probe by (at least 1, at most the CPUs this machine has).
std::size_t peak_cores(std::size_t threads);

}  // namespace seatorch::bench
