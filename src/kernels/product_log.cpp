// ProductLog: the rows of timed products, and the thread's recording log. A log holds a
// handful of kinds (an MLP's step runs five to eight), so a row is found by a linear search.
#include "seatorch/kernels/product_log.hpp"

#include <algorithm>

namespace seatorch::kernels {
namespace {

thread_local ProductLog* t_recording = nullptr;

}  // namespace

double ProductRecord::flops() const {
  return 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) * static_cast<double>(shape.k) *
         static_cast<double>(calls);
}

void ProductLog::add(const MatmulArgs& args, const Epilogue& epilogue, double seconds) {
  const bool bias = epilogue.bias != nullptr;
  auto same = [&](const ProductRecord& r) {
    return r.shape.m == args.shape.m && r.shape.n == args.shape.n && r.shape.k == args.shape.k && r.ta == args.ta &&
           r.tb == args.tb && r.accumulate == args.accumulate && r.bias == bias && r.relu == epilogue.relu;
  };
  auto row = std::find_if(records_.begin(), records_.end(), same);
  if (row == records_.end()) {
    row = records_.insert(records_.end(), ProductRecord{.shape = args.shape,
                                                        .ta = args.ta,
                                                        .tb = args.tb,
                                                        .accumulate = args.accumulate,
                                                        .bias = bias,
                                                        .relu = epilogue.relu});
  }
  ++row->calls;
  row->seconds += seconds;
}

RecordProducts::RecordProducts(ProductLog& log) : previous_(t_recording) { t_recording = &log; }

RecordProducts::~RecordProducts() { t_recording = previous_; }

ProductLog* recording_log() { return t_recording; }

}  // namespace seatorch::kernels
