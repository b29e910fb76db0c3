// When a product is worth splitting across threads, and on what boundaries: shared by
// matmul() and sparse_matmul(). Deliberately not here: the splits themselves.
#pragma once

#include <cstddef>

namespace seatorch::kernels {

// Below this many FLOPs (about 10 us of one core) waking a worker costs more than it saves.
inline constexpr double kParallelFlops = 1 << 20;
// Split boundaries: whole 64-column and 16-row blocks keep every kernel's tiles full.
inline constexpr std::size_t kColumnGrain = 64;
inline constexpr std::size_t kRowGrain = 16;

}  // namespace seatorch::kernels
