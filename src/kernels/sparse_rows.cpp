// SparseRows' sizes, the specification of the compression (a plain loop over the dense
// elements, in order; the kernels' loops are in sparse_driver.hpp), and the transpose.
#include "seatorch/kernels/sparse_rows.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace seatorch::kernels {

std::size_t SparseRows::nonzeros() const { return std::accumulate(count.begin(), count.end(), std::size_t{0}); }

double SparseRows::density() const {
  const double all = static_cast<double>(rows) * static_cast<double>(cols);
  return all == 0.0 ? 0.0 : static_cast<double>(nonzeros()) / all;
}

void shape_sparse(std::size_t rows, std::size_t cols, SparseRows& out) {
  out.rows = rows;
  out.cols = cols;
  out.stride = (cols + kSparseLanes - 1) / kSparseLanes * kSparseLanes;
  if ((out.stride / kSparseLanes) % 2 == 0) out.stride += kSparseLanes;  // an odd number of lines
  // Not zeroed: every compression writes each of its rows' counts once, on the thread that
  // fills the row; zeroing them all here, on one thread, would leave the other threads' lines
  // to fetch back from this one's cache.
  out.count.resize(rows);
  const std::size_t capacity = rows * out.stride;
  if (out.column.size() < capacity) {
    out.column.resize(capacity);
    out.value.resize(capacity);
  }
}

void compress_rows_ref(const float* a, std::size_t ld, std::size_t i0, std::size_t i1, SparseRows& out) {
  for (std::size_t i = i0; i < i1; ++i) {
    std::size_t e = out.begin(i);
    for (std::size_t p = 0; p < out.cols; ++p) {
      const float x = a[i * ld + p];
      if (x != 0.0f) {
        out.column[e] = static_cast<std::uint32_t>(p);
        out.value[e] = x;
        ++e;
      }
    }
    out.count[i] = static_cast<std::uint32_t>(e - out.begin(i));
  }
}

// Columns of A moved per sweep of the transpose. Each entry goes to the next free slot of
// its column's row of out, so a sweep over all of A's rows keeps one line of `column` and
// one of `value` in use for each row of out it writes: for 128 rows 16 KiB, which stay in a
// 48 KiB L1, where all 784 of a digit's columns at once (100 KiB) sent each entry's two
// stores to L2. The 784-128-10 weight gradient's product took 1.5-2 ms an epoch less with
// sweeps of 98 or 196 columns, and 128 read as 98 did; sweeps of 49 were no faster than one
// (DECISIONS 103).
constexpr std::size_t kTransposeSweep = 128;

void transpose_sparse(const SparseRows& a, std::size_t p0, std::size_t p1, SparseRows& out) {
  // The buffers never overlap; __restrict says so, or every store would reload the counts.
  std::uint32_t* __restrict count = out.count.data();  // (p1 - p0): out's rows so far
  std::uint32_t* __restrict column = out.column.data();
  float* __restrict value = out.value.data();
  std::fill_n(count, p1 - p0, 0u);
  const std::size_t stride = out.stride;
  const std::uint32_t* a_column = a.column.data();
  const float* a_value = a.value.data();
  thread_local std::vector<std::size_t> next;  // (a.rows): each row's first entry not yet moved
  next.resize(a.rows);
  for (std::size_t i = 0; i < a.rows; ++i) {
    // The row's entries are in increasing column: those in [p0, p1) are one run of them.
    const std::uint32_t* first = a_column + a.begin(i);
    const std::uint32_t* last = a_column + a.end(i);
    next[i] = static_cast<std::size_t>(
        (p0 == 0 ? first : std::lower_bound(first, last, static_cast<std::uint32_t>(p0))) - a_column);
  }
  for (std::size_t s0 = p0; s0 < p1; s0 += kTransposeSweep) {
    const auto s1 = static_cast<std::uint32_t>(std::min(p1, s0 + kTransposeSweep));
    for (std::size_t i = 0; i < a.rows; ++i) {
      std::size_t e = next[i];
      for (const std::size_t end = a.end(i); e < end && a_column[e] < s1; ++e) {
        const std::size_t p = a_column[e];
        const std::size_t slot = (p - p0) * stride + count[p - p0]++;
        column[slot] = static_cast<std::uint32_t>(i);
        value[slot] = a_value[e];
      }
      next[i] = e;
    }
  }
}

}  // namespace seatorch::kernels
