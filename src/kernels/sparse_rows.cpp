// SparseRows' sizes and the specification of the compressions: plain loops over the dense
// elements, in order. Favours clarity over speed (the kernels' loops are in sparse_driver.hpp).
#include "seatorch/kernels/sparse_rows.hpp"

#include <numeric>

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

void compress_columns_ref(const float* a, std::size_t ld, std::size_t p0, std::size_t p1, SparseRows& out) {
  for (std::size_t p = p0; p < p1; ++p) {
    std::size_t e = out.begin(p);
    for (std::size_t i = 0; i < out.cols; ++i) {
      const float x = a[i * ld + p];
      if (x != 0.0f) {
        out.column[e] = static_cast<std::uint32_t>(i);
        out.value[e] = x;
        ++e;
      }
    }
    out.count[p] = static_cast<std::uint32_t>(e - out.begin(p));
  }
}

}  // namespace seatorch::kernels
