// sparse_matmul(): the dispatch point of the sparse product and its split across threads,
// as matmul() does them for the dense one (matmul.cpp); the compression that makes its A, a
// whole copy per thread; sparse_matmul_tn, whose threads each transpose their columns of it;
// and the two products of a weight held in panels, split by whole panels. The kernel applies
// the epilogue.
#include "seatorch/kernels/sparse_matmul.hpp"

#include "seatorch/core/parallel.hpp"
#include "seatorch/kernels/kernel_registry.hpp"
#include "seatorch/kernels/product_log.hpp"
#include "thread_split.hpp"

#include <algorithm>
#include <cassert>

namespace seatorch::kernels {
namespace {

// A's copy that part `part` of a loop reads: the one its own thread made.
const SparseRows* copy_for(const SparseMatmulArgs& args, std::size_t part) {
  return args.a + std::min(part, args.copies - 1);
}

// The product's columns [j0, j1) of op(B), as a product of its own over A's copy for `part`.
SparseMatmulArgs columns(const SparseMatmulArgs& args, std::size_t part_index, std::size_t j0, std::size_t j1) {
  SparseMatmulArgs part = args;
  part.a = copy_for(args, part_index);
  part.copies = 1;
  part.n = j1 - j0;
  part.b += args.tb == Transpose::kNo ? j0 : j0 * args.ldb;
  part.c += args.transposed_c ? j0 * args.ldc : j0;
  return part;
}

// Each thread a block of op(B)'s columns, all of A's rows: each element is summed as on one
// thread. The forward's columns are rows of W.
void run_split(const KernelInfo& kernel, const SparseMatmulArgs& args, const Epilogue& epilogue) {
  if (sparse_matmul_flops(args) < kParallelFlops || core::threads() == 1 || args.n < 2 * kColumnGrain) {
    kernel.sparse_matmul(columns(args, 0, 0, args.n), epilogue);
    return;
  }
  core::parallel_ranges(args.n, kColumnGrain, kColumnGrain, [&](std::size_t part, std::size_t j0, std::size_t j1) {
    kernel.sparse_matmul(columns(args, part, j0, j1), epilogue.from_column(j0));
  });
}

// Columns [p0, p1) of A's copy for `part`, transposed into this thread's scratch: rows
// [p0, p1) of Aᵀ, (p1 - p0, m), valid until the thread's next call.
const SparseRows& transposed_columns(const SparseMatmulArgs& args, std::size_t part, std::size_t p0, std::size_t p1) {
  thread_local SparseRows columns;
  const SparseRows& a = *copy_for(args, part);
  shape_sparse(p1 - p0, a.rows, columns);
  transpose_sparse(a, p0, p1, columns);
  return columns;
}

// Rows [p0, p1) of C = Aᵀ op(B): those columns of A, transposed, times op(B).
void transposed_rows(const KernelInfo& kernel, const SparseMatmulArgs& args, std::size_t part, std::size_t p0,
                     std::size_t p1) {
  SparseMatmulArgs rows = args;
  rows.a = &transposed_columns(args, part, p0, p1);
  rows.copies = 1;
  rows.c += args.transposed_c ? p0 : p0 * args.ldc;
  kernel.sparse_matmul(rows, {});
}

// Each thread a block of C's rows, A's columns: the rows of W's gradient held as Wᵀ, as the
// optimizer splits them (train/optimizer.cpp); of a W held (out, in), C transposed, its columns.
void run_split_tn(const KernelInfo& kernel, const SparseMatmulArgs& args) {
  const std::size_t k = args.a->cols;
  if (sparse_matmul_flops(args) < kParallelFlops || core::threads() == 1) {
    transposed_rows(kernel, args, 0, 0, k);
    return;
  }
  core::parallel_ranges(k, 1, kRowGrain, [&](std::size_t part, std::size_t p0, std::size_t p1) {
    transposed_rows(kernel, args, part, p0, p1);
  });
}

// A product over a weight held in panels of `width` columns: the args.n / width panels split
// across threads in contiguous runs, each thread's A made once for all of its panels, then
// one product a panel. The forward (ta kNo): A is the thread's copy, panel q of op(B) the
// (k, width) block q * k * width on, its C columns q * width on. The weight gradient (ta
// kYes): A is that copy transposed, op(B)'s columns q * width on, C's panel q * k * width on.
void run_panels(const KernelInfo& kernel, const SparseMatmulArgs& args, std::size_t width, Transpose ta,
                const Epilogue& epilogue) {
  const std::size_t k = args.a->cols;
  const bool tn = ta == Transpose::kYes;
  const std::size_t b_step = tn ? width : k * width;
  const std::size_t c_step = tn ? k * width : width;
  core::parallel_ranges(args.n / width, 1, 1, [&](std::size_t part, std::size_t q0, std::size_t q1) {
    SparseMatmulArgs panel = args;
    panel.a = tn ? &transposed_columns(args, part, 0, k) : copy_for(args, part);
    panel.copies = 1;
    panel.n = width;
    if (tn) {
      panel.ldc = width;  // C's panels are (k, width)
    } else {
      panel.ldb = width;  // op(B)'s panels are (k, width)
    }
    for (std::size_t q = q0; q < q1; ++q) {
      panel.b = args.b + q * b_step;
      panel.c = args.c + q * c_step;
      kernel.sparse_matmul(panel, epilogue.from_column(q * width));
    }
  });
}

// out resized to `copies`, each copy made whole by whole(out[p], p) as part p of a loop, so
// that copy p is written by the thread whose parts of a product read it (core::parallel_for
// runs part p on thread p, as parallel_ranges does). One copy (one thread) is made here.
template <class Whole>
void make_copies(std::size_t copies, SparseCopies& out, Whole whole) {
  assert(copies >= 1);
  out.resize(copies);
  if (copies == 1) return whole(out[0], 0);
  core::parallel_for(copies, [&](std::size_t p) { whole(out[p], p); });
}

}  // namespace

void compress_rows(const float* a, std::size_t rows, std::size_t cols, std::size_t ld, std::size_t copies,
                   SparseCopies& out) {
  const KernelInfo& kernel = selected_kernel_info();
  make_copies(copies, out, [&](SparseRows& copy, std::size_t) {
    shape_sparse(rows, cols, copy);
    kernel.compress_rows(a, ld, 0, rows, copy);
  });
}

bool compress_if_sparse(const float* a, std::size_t rows, std::size_t cols, std::size_t ld, std::size_t copies,
                        SparseCopies& out) {
  compress_rows(a, rows, cols, ld, copies, out);
  return out[0].density() <= kSparseDensity;
}

void sparse_matmul_tn(const SparseMatmulArgs& args) {
  assert(args.tb == Transpose::kNo && (args.update == nullptr || (!args.transposed_c && !args.accumulate)));
  const KernelInfo& kernel = selected_kernel_info();
  run_recorded([&] { run_split_tn(kernel, args); },
               [&](ProductLog& log, double seconds) { log.add(args, {}, seconds, Transpose::kYes); });
}

void sparse_matmul_panels(const SparseMatmulArgs& args, std::size_t width, const Epilogue& epilogue) {
  assert(args.tb == Transpose::kNo && !args.transposed_c && !args.accumulate && width > 0 && args.n % width == 0 &&
         args.update == nullptr);
  const KernelInfo& kernel = selected_kernel_info();
  run_recorded([&] { run_panels(kernel, args, width, Transpose::kNo, epilogue); },
               [&](ProductLog& log, double seconds) { log.add(args, epilogue, seconds); });
}

void sparse_matmul_tn_panels(const SparseMatmulArgs& args, std::size_t width) {
  assert(args.tb == Transpose::kNo && !args.transposed_c && width > 0 && args.n % width == 0 &&
         (args.update == nullptr || !args.accumulate));
  const KernelInfo& kernel = selected_kernel_info();
  run_recorded([&] { run_panels(kernel, args, width, Transpose::kYes, {}); },
               [&](ProductLog& log, double seconds) { log.add(args, {}, seconds, Transpose::kYes); });
}

std::size_t sparse_copies() { return core::loop_threads(); }

double sparse_matmul_flops(const SparseMatmulArgs& args) {
  return 2.0 * static_cast<double>(args.a->nonzeros()) * static_cast<double>(args.n);
}

void sparse_matmul(const SparseMatmulArgs& args) { sparse_matmul(args, {}); }

void sparse_matmul(const SparseMatmulArgs& args, const Epilogue& epilogue) {
  assert(((epilogue.bias == nullptr && !epilogue.relu) || (!args.accumulate && !args.transposed_c)) &&
         args.update == nullptr);
  const KernelInfo& kernel = selected_kernel_info();
  run_recorded([&] { run_split(kernel, args, epilogue); },
               [&](ProductLog& log, double seconds) { log.add(args, epilogue, seconds); });
}

}  // namespace seatorch::kernels
