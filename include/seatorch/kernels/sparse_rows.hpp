// A matrix that is mostly zeros, kept as its rows' nonzero entries: the form in which the
// sparse product (sparse_matmul.hpp) reads a batch of MNIST digits, four fifths of whose
// pixels are 0. Each row's entries are in increasing column order, the order in which every
// dense kernel sums a row's products, so a product over them adds the same terms in the same
// order and only leaves out the zeros' (exactly zero) ones.
//
// Row i's entries sit at [i * stride, i * stride + count[i]) of the entry buffers: every row
// has room for all its elements, so rows are filled independently (one thread a range of
// them) and no pass over the counts has to come first. The stride is the row length rounded
// up to kSparseLanes, which lets a kernel's compression store whole registers past a row's
// last entry, and then to an odd number of them (of 64-byte lines): the transpose of a batch
// of 128 writes the next entry of each of 784 rows in turn, and at 512 bytes apart those
// rows' lines fall into an eighth of the L1's sets (DECISIONS 69).
//
// Built from a dense row-major matrix; its transpose from it. An entry is kept when it
// compares unequal to 0 (so a NaN is kept, and -0 is left out like +0: its products only
// ever add a zero). The plain loop here is the specification; the kernels' own
// (kernel_registry.hpp) and the dispatched ones that make a copy per thread
// (sparse_matmul.hpp) must fill the same entries. Deliberately not here: arithmetic, other
// sparse formats, and rows longer than 2^32 - 1 elements (an entry's column is 32 bits).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace seatorch::kernels {

// The widest register's lanes (AVX-512's 16 floats, one cache line): row strides are an odd
// multiple of it.
inline constexpr std::size_t kSparseLanes = 16;

struct SparseRows {
  std::size_t rows = 0;
  std::size_t cols = 0;
  std::size_t stride = 0;             // row i's entries start at i * stride
  std::vector<std::uint32_t> count;   // (rows): how many entries row i has
  std::vector<std::uint32_t> column;  // (rows * stride): each entry's column
  std::vector<float> value;           // (rows * stride): each entry's value

  [[nodiscard]] std::size_t begin(std::size_t i) const { return i * stride; }
  [[nodiscard]] std::size_t end(std::size_t i) const { return i * stride + count[i]; }
  [[nodiscard]] std::size_t nonzeros() const;
  // The share of the rows x cols entries that are kept, 0 for an empty matrix.
  [[nodiscard]] double density() const;
};

// Makes out a (rows, cols) matrix with room for every element, for a compression to fill:
// its counts are left as they were until then. The buffers are reused: a matrix of the same
// size allocates nothing.
void shape_sparse(std::size_t rows, std::size_t cols, SparseRows& out);

// Rows [i0, i1) of out (shaped as the dense matrix, (rows, cols)) = the nonzeros of those
// rows of the dense matrix at a, row stride ld.
void compress_rows_ref(const float* a, std::size_t ld, std::size_t i0, std::size_t i1, SparseRows& out);

// out (shaped (p1 - p0, a.rows) by shape_sparse) = the transpose of a's columns [p0, p1):
// row r of out holds the entries of a in column p0 + r, in increasing row of a. The columns
// of a matrix already compressed by rows, without going back to its dense elements; the
// whole transpose is the range [0, a.cols).
void transpose_sparse(const SparseRows& a, std::size_t p0, std::size_t p1, SparseRows& out);

}  // namespace seatorch::kernels
