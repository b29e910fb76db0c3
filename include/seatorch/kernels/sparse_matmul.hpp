// The product of a sparse matrix and a dense one, for the first layer of an MLP on images:
// a batch of MNIST digits is four-fifths zeros, and its two products (the forward X·Wᵀ and
// the weight gradient Xᵀ·G, sparse_matmul_tn) need only the nonzeros' multiply-adds.
//
//   C = A op(B)            (accumulate = false; with an Epilogue: relu(bias + A op(B)))
//   C = C + A op(B)        (accumulate = true)
//
// A is SparseRows (m, k); op(B) is (k, n), B row-major with row stride ldb, stored (n, k)
// when tb is kYes; C is (m, n) with row stride ldc, or stored transposed, (n, m), when
// transposed_c (the weight gradient of a W held (out, in): Gᵀ·X = (Xᵀ·G)ᵀ, from Xᵀ's rows;
// nn::Linear holds Wᵀ, whose gradient Xᵀ·G is C as it comes; sparse_matmul_tn makes both).
//
// Each kernel sums an element's nonzero products as its dense twin sums all of them (in
// increasing p, in the same passes over the depth, added to C the same way), so where the
// left-out products are exact zeros, as they are for finite B, the result is bit-identical
// to kernels::matmul() on the dense A with the same kernel selected. sparse_matmul_ref() is
// that statement for matmul_ref(); the `ref` kernel uses it. With more than one thread the
// columns of op(B) are split, bit-identically.
//
// Deliberately not here: which operands are data worth compressing (the callers decide:
// tensor::linear and the float evaluator, through compress_if_sparse), epilogues on a
// transposed C.
#pragma once

#include "seatorch/kernels/matmul.hpp"
#include "seatorch/kernels/optimizer_update.hpp"
#include "seatorch/kernels/sparse_rows.hpp"

#include <cstddef>
#include <vector>

namespace seatorch::kernels {

struct SparseMatmulArgs {
  // (m, k), as `copies` identical matrices at a[0], a[1], ...: part p of a product split
  // across threads reads a[min(p, copies - 1)], the copy its own thread made (SparseCopies).
  const SparseRows* a = nullptr;
  const float* b = nullptr;  // op(B) (k, n): B stored (k, n), or (n, k) when tb is kYes; row stride ldb
  std::size_t ldb = 0;
  Transpose tb = Transpose::kNo;
  std::size_t n = 0;
  float* c = nullptr;  // C (m, n), row stride ldc (or stored (n, m): transposed_c)
  std::size_t ldc = 0;
  bool transposed_c = false;  // C stored (n, m): element (i, j) at c[j * ldc + i]
  bool accumulate = false;
  std::size_t copies = 1;
  // When set, C is a parameter's gradient that this update consumes: each block of it goes
  // to update->apply as it is made and none is stored. c then points into the parameter
  // itself, which has C's layout, to say which elements each block updates. Only the weight
  // gradients take it (sparse_matmul_tn and sparse_matmul_tn_panels; not transposed_c, not
  // accumulate).
  const BlockUpdate* update = nullptr;
};

// The same sparse matrix once per thread, copy p made by thread p and read by part p of every
// product over it. Every thread of a product reads the whole of A; a thread that then
// rewrites rows the other core has read (the next batch's) must first take each cache line
// back from it, and on Zen 4 that made a batch's compression slower on two threads (26 us)
// than on one (13 us), and its transpose no faster. Each thread building its own copy does
// the work twice but writes only lines no other core holds (DECISIONS 66).
using SparseCopies = std::vector<SparseRows>;

// How many copies to make of data about to be compressed: one per thread that a product
// started here would run on (one inside a part, where products run inline).
std::size_t sparse_copies();

// Above this share of nonzeros in A the dense product is as fast or faster. A batch of 64
// MNIST digits has 19 %, one of the default recipe's augmented digits 26 %; the hidden
// layers' ReLU outputs about half. On Zen 4, with the nonzeros placed at random and their
// compression counted, the 784-128 and 784-256 layers' sparse forward breaks even with the
// dense one at 45-50 % and their weight gradient at 30 % (DECISIONS 65).
inline constexpr double kSparseDensity = 0.3;

// The specification: matmul_ref()'s loops over the nonzeros only.
void sparse_matmul_ref(const SparseMatmulArgs& args);

// The product with the selected kernel's sparse twin (matmul.hpp's select_kernel and
// SEATORCH_KERNEL choose both), split across threads by columns of op(B).
void sparse_matmul(const SparseMatmulArgs& args);
// The same with an epilogue, applied as matmul()'s is; args.accumulate and args.transposed_c
// must be false.
void sparse_matmul(const SparseMatmulArgs& args, const Epilogue& epilogue);

// C (a.cols, n) = or += Aᵀ B, A (m, k) given by its rows: the weight gradient Xᵀ·G of a
// layer that holds Wᵀ, X its data (nn::Linear), or with args.transposed_c C stored (n, k),
// Gᵀ·X, the gradient of a W held (out, in). args.a holds `copies` copies of A by rows, as
// compress_rows makes them; B is (m, n), stored as it is (args.tb kNo); no epilogue. Split
// across threads by rows of C, which are columns of A: each thread transposes only its
// columns of its own copy (transpose_sparse) and multiplies them with the selected kernel,
// where a split by columns of B would have every thread transpose all of A. Each element is
// summed as sparse_matmul() sums it over the whole transpose, so the bits are the same on any
// thread count.
void sparse_matmul_tn(const SparseMatmulArgs& args);

// The two products of a weight held in panels of `width` columns (args.n a multiple of it),
// as tensor::linear holds one (tensor::WeightLayout::kInOutPanels): panel q is op(B)'s, or
// C's, columns [q * width, (q + 1) * width), an (a.cols, width) row-major block at
// q * a.cols * width from the start (args.tb kNo and args.transposed_c false). Both split
// across threads by whole panels, in contiguous runs as core::parallel_ranges splits a range
// of them (the optimizer splits the weight's elements the same way), so that each core reads
// and writes only its own panels. Each element is the same sum as in sparse_matmul and
// sparse_matmul_tn, on any thread count.
//
// The forward: C (m, n, row stride ldc) = relu(bias + A op(B)) with op(B) in panels (args.b
// the first; args.ldb unused); not accumulated.
void sparse_matmul_panels(const SparseMatmulArgs& args, std::size_t width, const Epilogue& epilogue);
// The weight gradient: C = or += Aᵀ B with C in panels (args.c the first; args.ldc unused);
// each thread transposes its copy of A once for all of its panels.
void sparse_matmul_tn_panels(const SparseMatmulArgs& args, std::size_t width);

// Every copy in out (resized to `copies`) = the nonzeros of the dense (rows, cols) matrix at
// a (row stride ld), with the selected kernel's loop: copy p compressed whole by thread p (one
// copy by the calling thread). out's buffers are reused.
void compress_rows(const float* a, std::size_t rows, std::size_t cols, std::size_t ld, std::size_t copies,
                   SparseCopies& out);
// compress_rows() into `copies` copies, then whether they are sparse enough for
// sparse_matmul (kSparseDensity): the one test of every caller that has data in hand and a
// product to run.
bool compress_if_sparse(const float* a, std::size_t rows, std::size_t cols, std::size_t ld, std::size_t copies,
                        SparseCopies& out);

// The FLOPs a call does: 2 for each nonzero of A and column of op(B).
double sparse_matmul_flops(const SparseMatmulArgs& args);

}  // namespace seatorch::kernels
