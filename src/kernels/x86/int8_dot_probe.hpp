// The int8 dot-product probe behind `bench int8`'s ceilings (Int8Kernel::dot_probe), written
// once over the ISA policies of int8_gemm_tiles.hpp, of which it uses load, broadcast, dot
// and store, plus one more member:
//
//   static constexpr std::size_t kProbeChains;  // independent accumulators: throughput x latency
//
// Included only by the ISA files, which instantiate it with their policy; internal linkage,
// as the tiles.
// Deliberately not here: timing (bench::best_probe_rate), turning products into a ceiling
// (bench/int8_bench.cpp).
#pragma once

#include "int8_gemm_tiles.hpp"

namespace seatorch::kernels::x86 {
namespace {

// Int8Kernel::dot_probe: Isa::kProbeChains independent chains of Isa::dot on registers, each
// dot on the same operands. The empty asm before each dot tells the compiler the activations
// may have changed, so no part of a dot (AVX2's vpmaddwd before its add) is computed once
// and reused; it emits no instruction. (Taking the activations from another chain's
// accumulator instead put the multiply on the critical path: 8 % slower on Zen 4, whose
// vpdpbusd forwards an accumulator sooner than a multiplicand.) The sums wrap, which the
// integer lanes allow.
template <class Isa>
double dot_probe(std::size_t rounds) {
  constexpr std::size_t kChains = Isa::kProbeChains;
  alignas(64) std::int8_t weights[Isa::kBlockBytes];  // (kRows, 4): one packed block
  volatile std::int8_t seed = 3;                      // read at run time: nothing is computed ahead
  for (std::size_t i = 0; i < Isa::kBlockBytes; ++i) weights[i] = static_cast<std::int8_t>(seed + i);
  const typename Isa::Acc b = Isa::load(weights);
  typename Isa::Act a = Isa::broadcast(static_cast<typename Isa::ActWord>(seed));
  typename Isa::Acc acc[kChains];
#pragma GCC unroll 16
  for (std::size_t c = 0; c < kChains; ++c) acc[c] = Isa::broadcast(static_cast<typename Isa::ActWord>(seed + c));
  for (std::size_t r = 0; r < rounds; ++r) {
#pragma GCC unroll 16
    for (std::size_t c = 0; c < kChains; ++c) {
      __asm__("" : "+v"(a));
      acc[c] = Isa::dot(acc[c], a, b);
    }
  }
  // Every chain's result is consumed, so that none of them can be optimised away. The stores
  // come first, fully unrolled, as in the tiles: consumed in a rolled loop, the accumulators
  // made GCC 12 copy each new sum to another register every round.
  alignas(64) std::int32_t lanes[kChains][Isa::kRows];  // (chains, lanes): each chain's sums
#pragma GCC unroll 16
  for (std::size_t c = 0; c < kChains; ++c) Isa::store(lanes[c], acc[c]);
  std::uint32_t sum = 0;
  for (std::size_t c = 0; c < kChains; ++c) {
    for (std::size_t l = 0; l < Isa::kRows; ++l) sum += static_cast<std::uint32_t>(lanes[c][l]);
  }
  volatile std::uint32_t sink = sum;
  (void)sink;
  // Every dot is kRows output rows x 4 activations.
  return static_cast<double>(rounds) * kChains * static_cast<double>(Isa::kRows * 4);
}

}  // namespace
}  // namespace seatorch::kernels::x86
