// Asking the CPU for memory before it is used: every cache line a byte range touches. The
// batch gather, the augmentation's warp and the GEMM driver's C tiles all do this.
// Deliberately not here: deciding what is worth prefetching, or how far ahead.
#pragma once

#include <cstddef>
#include <cstdint>

namespace seatorch::core {

inline constexpr std::size_t kCacheLineBytes = 64;  // on every CPU seatorch targets

enum class PrefetchFor { kRead, kWrite };

// Asks for every cache line of [p, p + bytes), from the one holding its first byte to the one
// holding its last, into all cache levels. Always inlined: GCC 12 finds a function whose only
// statements are prefetches free of side effects (a prefetch changes no memory) and deletes
// the calls to it, which it did to the GEMM driver's first prefetch of C (DECISIONS 59).
[[gnu::always_inline]] inline void prefetch_lines(const void* p, std::size_t bytes,
                                                  PrefetchFor intent = PrefetchFor::kRead) {
  if (bytes == 0) return;
  const std::uintptr_t last = reinterpret_cast<std::uintptr_t>(p) + bytes - 1;
  for (std::uintptr_t line = reinterpret_cast<std::uintptr_t>(p) & ~(kCacheLineBytes - 1); line <= last;
       line += kCacheLineBytes) {
    // The read/write argument must be a constant, hence two calls.
    if (intent == PrefetchFor::kWrite) {
      __builtin_prefetch(reinterpret_cast<const void*>(line), 1, 3);
    } else {
      __builtin_prefetch(reinterpret_cast<const void*>(line), 0, 3);
    }
  }
}

}  // namespace seatorch::core
