// The row loop of compress_rows, one build per ISA: the nonzeros of row[0, cols) stored at
// column[0, n) and value[0, n), returning n. A build may write up to kCompressSlack entries
// past n (whole vectors), so the buffers hold that many more than the row's elements.
// Only sparse_rows.cpp calls them, after checking the CPU.
#pragma once

#include <cstddef>
#include <cstdint>

namespace seatorch::kernels {

inline constexpr std::size_t kCompressSlack = 16;

std::size_t compress_row_portable(const float* row, std::size_t cols, std::uint32_t* column, float* value);
#if defined(__x86_64__)
std::size_t compress_row_avx512(const float* row, std::size_t cols, std::uint32_t* column, float* value);
#endif

}  // namespace seatorch::kernels
