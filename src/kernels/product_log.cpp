// ProductLog: the rows of timed products, and the thread's recording log. A log holds a
// handful of kinds (an MLP's step runs five to eight), so a row is found by a linear search.
// Deliberately not here: timing (matmul() and sparse_matmul() time the calls they dispatch).
#include "seatorch/kernels/product_log.hpp"

#include <algorithm>
#include <cassert>

namespace seatorch::kernels {
namespace {

thread_local ProductLog* t_recording = nullptr;

}  // namespace

double ProductKind::dense_flops() const {
  return 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) * static_cast<double>(shape.k);
}

double total_seconds(std::span<const ProductRecord> records) {
  double seconds = 0.0;
  for (const ProductRecord& r : records) seconds += r.seconds;
  return seconds;
}

double total_flops(std::span<const ProductRecord> records) {
  double flops = 0.0;
  for (const ProductRecord& r : records) flops += r.flops;
  return flops;
}

void ProductLog::add(const MatmulArgs& args, const Epilogue& epilogue, double seconds) {
  const ProductKind kind{.shape = args.shape,
                         .ta = args.ta,
                         .tb = args.tb,
                         .accumulate = args.accumulate,
                         .bias = epilogue.bias != nullptr,
                         .relu = epilogue.relu};
  add(kind, kind.dense_flops(), seconds);
}

void ProductLog::add(const SparseMatmulArgs& args, const Epilogue& epilogue, double seconds, Transpose ta) {
  // Recorded as the dense product it stands for: C (m, n) = op(A) (m, k) op(B), or its
  // transpose, op(B)ᵀ Aᵀ, which the weight gradient's B as stored (tb kNo) gives as the left
  // operand.
  assert(!args.transposed_c || args.tb == Transpose::kNo);
  const bool at = ta == Transpose::kYes;
  const MatmulShape shape{at ? args.a->cols : args.a->rows, args.n, at ? args.a->rows : args.a->cols};
  const ProductKind kind{.shape = args.transposed_c ? MatmulShape{shape.n, shape.m, shape.k} : shape,
                         .ta = args.transposed_c ? Transpose::kYes : ta,
                         .tb = args.transposed_c ? Transpose::kNo : args.tb,
                         .accumulate = args.accumulate,
                         .bias = epilogue.bias != nullptr,
                         .relu = epilogue.relu,
                         .sparse = true,
                         .update = args.update != nullptr};
  add(kind, sparse_matmul_flops(args), seconds);
}

void ProductLog::add(const ProductKind& kind, double flops, double seconds) {
  auto row = std::find_if(records_.begin(), records_.end(), [&](const ProductRecord& r) { return r.kind == kind; });
  if (row == records_.end()) row = records_.insert(records_.end(), ProductRecord{.kind = kind});
  ++row->calls;
  row->seconds += seconds;
  row->flops += flops;
}

RecordProducts::RecordProducts(ProductLog* log) : previous_(t_recording) { t_recording = log; }

RecordProducts::~RecordProducts() { t_recording = previous_; }

ProductLog* recording_log() { return t_recording; }

}  // namespace seatorch::kernels
