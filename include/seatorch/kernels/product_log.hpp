// Which matrix products a stretch of code ran, and the wall time each kind took. While a
// ProductLog records on a thread (RecordProducts), every matmul() and sparse product that
// thread calls is timed around the whole call, its split across threads included, and added
// to the log's row for that shape, form, epilogue and sparsity, with the FLOPs it did (a
// sparse product's are its nonzeros' only). `bench train` uses it to split an epoch into its
// products and the rest, without a build of its own for the purpose.
//
// Only the dispatch points are timed: a thread's block of a split product, or a kernel run
// through matmul_with(), is not a product of its own. Deliberately not here:
// FLOP-rate and peak arithmetic beyond a row's own FLOPs (the bench's), and any timing of
// threads other than the one recording.
#pragma once

#include "seatorch/kernels/matmul.hpp"
#include "seatorch/kernels/sparse_matmul.hpp"

#include <chrono>
#include <cstddef>
#include <span>
#include <vector>

namespace seatorch::kernels {

// One kind of product: a shape, a form and an epilogue.
struct ProductKind {
  MatmulShape shape;
  Transpose ta = Transpose::kNo;
  Transpose tb = Transpose::kNo;
  bool accumulate = false;  // C += op(A) op(B)
  bool bias = false;        // fused: C starts from a bias row
  bool relu = false;        // fused: then clamped at zero
  bool sparse = false;      // A given as its nonzeros (sparse_matmul); m n k its dense shape
  bool update = false;      // C handed to an optimizer update (SparseMatmulArgs::update), its time included
  bool operator==(const ProductKind&) const = default;

  // 2 m n k: the FLOPs of one call of the dense product.
  [[nodiscard]] double dense_flops() const;
};

// A kind of product with how often and how long it ran.
struct ProductRecord {
  ProductKind kind;
  std::size_t calls = 0;
  double seconds = 0.0;  // wall time, summed over the calls
  double flops = 0.0;    // done, summed over the calls: dense_flops(), or a sparse call's own
};

// The wall time of all the records' calls, and the FLOPs they did.
double total_seconds(std::span<const ProductRecord> records);
double total_flops(std::span<const ProductRecord> records);

class ProductLog {
 public:
  // The kinds of product seen, in the order they first ran.
  [[nodiscard]] const std::vector<ProductRecord>& records() const { return records_; }
  // Adds one call of `args` with `epilogue` that took `seconds`.
  void add(const MatmulArgs& args, const Epilogue& epilogue, double seconds);
  // A sparse call of op(A) = A (sparse_matmul), or of Aᵀ with `ta` (sparse_matmul_tn).
  void add(const SparseMatmulArgs& args, const Epilogue& epilogue, double seconds, Transpose ta = Transpose::kNo);

 private:
  void add(const ProductKind& kind, double flops, double seconds);

  std::vector<ProductRecord> records_;
};

// Makes `log` record the products this thread runs until the scope ends; the log recording
// before (if any) records again after it.
class RecordProducts {
 public:
  explicit RecordProducts(ProductLog& log) : RecordProducts(&log) {}
  ~RecordProducts();
  RecordProducts(const RecordProducts&) = delete;
  RecordProducts& operator=(const RecordProducts&) = delete;

 protected:
  explicit RecordProducts(ProductLog* log);  // null: nothing records in the scope

 private:
  ProductLog* previous_;
};

// Stops this thread's recording until the scope ends, for products run inside a recorded
// stretch that are not its own (the augmentation's smoothing, timed as the augmentation).
class PauseRecording : private RecordProducts {
 public:
  PauseRecording() : RecordProducts(nullptr) {}
};

// The log recording on this thread, or null (matmul() asks).
ProductLog* recording_log();

// Runs run(); while this thread records products, times it (wall) and passes the log and the
// seconds to record(log, seconds), which adds the call under its kind. The dispatch points
// (matmul(), sparse_matmul(), sparse_matmul_tn()) go through it.
template <class Run, class Record>
void run_recorded(Run&& run, Record&& record) {
  ProductLog* log = recording_log();
  if (log == nullptr) {
    run();
    return;
  }
  const auto start = std::chrono::steady_clock::now();
  run();
  record(*log, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace seatorch::kernels
