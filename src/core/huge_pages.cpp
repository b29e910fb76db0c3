// zeroed_bytes(): a byte vector reserved, its whole 2 MiB pages advised with
// madvise(MADV_HUGEPAGE) on Linux, then zeroed.
#include "seatorch/core/huge_pages.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace seatorch::core {
namespace {

constexpr std::uintptr_t kHugePageBytes = std::uintptr_t{2} << 20;

// Advises the whole kHugePageBytes pages inside [p, p + bytes), if there is one.
void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kHugePageBytes - 1);
  // A refused hint (THP off, an old kernel) leaves the pages as they were: nothing to report.
  if (last > first) (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace

std::vector<std::uint8_t> zeroed_bytes(std::size_t count) {
  std::vector<std::uint8_t> bytes;
  bytes.reserve(count);
  advise_huge_pages(bytes.data(), bytes.capacity());
  bytes.resize(count);
  return bytes;
}

}  // namespace seatorch::core
