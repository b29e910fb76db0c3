// The FMA-throughput probe behind the bench's "peak" figure, written once for every ISA.
//
// It runs kChains independent chains of fused multiply-adds on full vector registers and
// nothing else (no loads or stores in the loop), so the time it takes is the core's FMA
// throughput, not its memory system's. kChains covers throughput x latency on current
// cores (Zen 4: 2 x 256-bit FMAs per cycle, 4 cycles latency, so 8 ymm chains; Intel: two
// 512-bit FMA ports, 4 cycles, so 8 zmm chains) with room to spare.
// Every template takes the ISA traits V first (see micro_kernel.hpp for why).
#pragma once

#include <cstddef>

namespace seatorch::kernels {

// Runs `rounds` rounds of kChains vector FMAs; returns the floating-point operations done
// (2 per lane per FMA).
template <class V>
double fma_probe(std::size_t rounds) {
  constexpr std::size_t kChains = 12;
  using Reg = typename V::Reg;
  // acc <- acc * 0.5 + 0.5 converges to 1: no overflow, no denormals, however long it runs.
  // The chains start from distinct values read through a volatile, so that the compiler can
  // neither merge them nor compute them ahead.
  volatile float seed = 0.5f;
  const float half = seed;
  const Reg x = V::broadcast(&half);
  Reg acc[kChains];
#pragma GCC unroll 16
  for (std::size_t c = 0; c < kChains; ++c) {
    const float start = seed * static_cast<float>(c);
    acc[c] = V::broadcast(&start);
  }
  for (std::size_t r = 0; r < rounds; ++r) {
#pragma GCC unroll 16
    for (std::size_t c = 0; c < kChains; ++c) acc[c] = V::fma(acc[c], x, x);
  }
  // Consume the result so the loop cannot be optimised away.
  Reg sum = acc[0];
#pragma GCC unroll 16
  for (std::size_t c = 1; c < kChains; ++c) sum = V::add(sum, acc[c]);
  float lanes[V::kLanes];
  V::store(lanes, sum);
  volatile float sink = lanes[0];
  (void)sink;
  return 2.0 * static_cast<double>(rounds) * kChains * V::kLanes;
}

}  // namespace seatorch::kernels
