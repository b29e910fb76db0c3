// Copies chosen rows of a Dataset into batch tensors: features (rows, features) F32 and
// labels (rows) I32. Private to the trainers and the evaluator.
#pragma once

#include "seatorch/core/parallel.hpp"
#include "seatorch/data/dataset.hpp"
#include "seatorch/tensor/tensor.hpp"

#include <algorithm>
#include <cstddef>
#include <span>

namespace seatorch::detail {

// Fewer rows than this per thread are copied faster than a worker wakes.
inline constexpr std::size_t kGatherRowsPerThread = 16;
// How far ahead a gather asks for rows: enough to cover a memory latency with conversions.
inline constexpr std::size_t kPrefetchRows = 4;

struct Batch {
  tensor::Tensor x;  // (rows, features) F32
  tensor::Tensor y;  // (rows) I32
};

// The batch's labels, and features (rows, features) left for the caller to fill.
inline Batch gather_labels(const data::Dataset& data, std::span<const std::size_t> rows) {
  Batch b{tensor::Tensor::empty({rows.size(), data.features}), tensor::Tensor::empty({rows.size()}, core::DType::kI32)};
  std::int32_t* y = b.y.data<std::int32_t>();
  for (std::size_t r = 0; r < rows.size(); ++r) y[r] = data.y[rows[r]];
  return b;
}

// Asks the CPU for the next batch's rows while this step computes: a shuffled batch's rows
// lie anywhere in the 47 MB of training pixels, and fetched on demand they stalled the
// gather (the 784-128-10 epoch's batching: 0.026-0.030 s without this, 0.019-0.021 s with it on
// Zen 4, interleaved runs).
inline void prefetch_rows(const data::Dataset& data, std::span<const std::size_t> rows) {
  for (const std::size_t r : rows) data.prefetch_features(r);
}

// The rows split across threads: each copies its own, then asks for the first line of each
// row of its share of the next batch (`next`, empty for the last batch), which it will copy
// in the next step. A row that one core asked for lands in that core's L2; asked for by the
// main thread alone, half of them were then read across cores (the data phase of the
// default model on 2 threads: 0.015-0.022 s, median 0.018, before; 0.013-0.017 s, median
// 0.016, after; six interleaved pairs on Zen 4). Whole rows, 53 KB for a batch of 64 digits
// asked for at once, wait on the core's few line-fill buffers and push the step's own lines
// out of L1: on the model-167 Xeon the 784-128-10 data phase took 0.0138-0.0147 s an epoch
// with them, 0.0121-0.0127 s with first lines only and 0.0128-0.0132 s with none, and the
// epoch 0.121-0.124, 0.119-0.122 and 0.119-0.121 s (five interleaved runs each; DECISIONS 103).
inline Batch gather_batch(const data::Dataset& data, std::span<const std::size_t> rows,
                          std::span<const std::size_t> next) {
  Batch b = gather_labels(data, rows);
  float* x = b.x.data<float>();
  core::parallel_ranges(rows.size(), 1, kGatherRowsPerThread, [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < std::min(end, begin + kPrefetchRows); ++r) data.prefetch_features(rows[r]);
    for (std::size_t r = begin; r < end; ++r) {
      if (r + kPrefetchRows < end) data.prefetch_features(rows[r + kPrefetchRows]);
      data.copy_features(rows[r], 1, std::span<float>(x + r * data.features, data.features));
    }
    // The same share of the next batch (only the epoch's last batch is shorter).
    const std::size_t first = begin * next.size() / rows.size();
    for (const std::size_t r : next.subspan(first, end * next.size() / rows.size() - first)) {
      data.prefetch_first_line(r);
    }
  });
  return b;
}

}  // namespace seatorch::detail
