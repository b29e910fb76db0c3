// advise_huge_pages(): madvise(MADV_HUGEPAGE) over a buffer's whole 2 MiB pages, on Linux; and
// zeroed_bytes(), a byte vector made on them.
#include "seatorch/core/huge_pages.hpp"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace seatorch::core {

void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (begin + kHugePageBytes - 1) & ~std::uintptr_t{kHugePageBytes - 1};
  const std::uintptr_t last = (begin + bytes) & ~std::uintptr_t{kHugePageBytes - 1};
  // A refused hint (THP off, an old kernel) leaves the pages as they were: nothing to report.
  if (last > first) (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

std::vector<std::uint8_t> zeroed_bytes(std::size_t count) {
  std::vector<std::uint8_t> bytes;
  bytes.reserve(count);
  advise_huge_pages(bytes.data(), bytes.capacity());
  bytes.resize(count);
  return bytes;
}

}  // namespace seatorch::core
