// A matrix that is mostly zeros, kept as its rows' nonzero entries (compressed sparse rows):
// the form in which the sparse product (sparse_matmul.hpp) reads a batch of MNIST digits,
// four fifths of whose pixels are 0. Each row's entries are in increasing column order, the
// order in which every dense kernel sums a row's products, so a product over them adds the
// same terms in the same order and only leaves out the zeros' (exactly zero) ones.
//
// Built from a dense row-major matrix, as it is or transposed. An entry is kept when it
// compares unequal to 0 (so a NaN is kept, and -0 is left out like +0: its products only
// ever add a zero). Deliberately not here: arithmetic, other sparse formats, and more than
// 2^32 - 1 entries (a batch of 64 MNIST images has 50,176).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace seatorch::kernels {

struct SparseRows {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::vector<std::uint32_t> start;   // (rows + 1): row i's entries are [start[i], start[i + 1])
  std::vector<std::uint32_t> column;  // (at least nonzeros()): each entry's column
  std::vector<float> value;           // (at least nonzeros()): each entry's value

  [[nodiscard]] std::size_t nonzeros() const { return start.empty() ? 0 : start.back(); }
  // The share of the rows x cols entries that are kept, 0 for an empty matrix.
  [[nodiscard]] double density() const;
};

// out = the nonzero entries of the dense (rows, cols) matrix at a, row stride ld >= cols.
// out's buffers are reused: a matrix of the same size allocates nothing.
void compress_rows(const float* a, std::size_t rows, std::size_t cols, std::size_t ld, SparseRows& out);

// The row loop's builds this CPU can run, the portable one first and the one compress_rows()
// uses last; compress_rows_with() runs a given one (tests compare them).
struct RowCompressor {
  using Fn = std::size_t (*)(const float* row, std::size_t cols, std::uint32_t* column, float* value);
  std::string_view name;  // "portable", "avx512"
  Fn run;
};
std::span<const RowCompressor> row_compressors();
void compress_rows_with(RowCompressor::Fn run, const float* a, std::size_t rows, std::size_t cols, std::size_t ld,
                        SparseRows& out);

// out = the nonzero entries of the transpose of that matrix: (cols, rows), row p holding
// column p of a with its entries in increasing row order.
void compress_columns(const float* a, std::size_t rows, std::size_t cols, std::size_t ld, SparseRows& out);

}  // namespace seatorch::kernels
