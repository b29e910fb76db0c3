// A small, seeded, platform-independent random number generator.
//
// seatorch promises bit-identical results for the same seed, so it cannot use the standard
// library's distributions (their algorithms are implementation-defined). Rng is xoshiro256**
// seeded through SplitMix64, with the few distributions seatorch needs written out here.
// It is not cryptographic and not thread-safe; each consumer owns its own Rng.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

namespace seatorch::core {

class Rng {
 public:
  explicit Rng(std::uint64_t seed);

  std::uint64_t next_u64();
  // Uniform in [0, 1) with 53 random bits.
  double uniform();
  // Uniform in [lo, hi).
  double uniform(double lo, double hi);
  // Standard normal (Box-Muller; one of the pair is discarded to keep the state simple).
  double normal();
  // Uniform integer in [0, n), unbiased (rejection sampling). n must be > 0.
  std::uint64_t below(std::uint64_t n);

  // Fisher-Yates shuffle.
  template <typename T>
  void shuffle(std::span<T> items) {
    for (std::size_t i = items.size(); i > 1; --i) {
      std::swap(items[i - 1], items[below(i)]);
    }
  }

 private:
  std::uint64_t state_[4];
};

}  // namespace seatorch::core
