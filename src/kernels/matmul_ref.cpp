// matmul_ref: the specification of every matmul kernel. Handles all strides and both
// transpose flags; favours clarity over speed.
//
// Each C element is the float32 sum of its k products in increasing p, started from 0 and
// then added to C when accumulating. The loops run i, p, j over a row of sums so that the
// innermost loop walks rows (the i, j, p order strides down B's columns and ran at a
// fraction of a GFLOPS on 1024^3); the summation order per element is the same.
#include "seatorch/kernels/matmul.hpp"

#include <vector>

namespace seatorch::kernels {

void matmul_ref(const MatmulArgs& args) {
  const auto [m, n, k] = args.shape;
  std::vector<float> sum(n);  // (n): row i of op(A) * op(B)
  for (std::size_t i = 0; i < m; ++i) {
    sum.assign(n, 0.0f);
    for (std::size_t p = 0; p < k; ++p) {
      const float a = args.ta == Transpose::kYes ? args.a[p * args.lda + i] : args.a[i * args.lda + p];
      for (std::size_t j = 0; j < n; ++j) {
        const float b = args.tb == Transpose::kYes ? args.b[j * args.ldb + p] : args.b[p * args.ldb + j];
        sum[j] += a * b;
      }
    }
    for (std::size_t j = 0; j < n; ++j) {
      float& c = args.c[i * args.ldc + j];
      c = args.accumulate ? c + sum[j] : sum[j];
    }
  }
}

}  // namespace seatorch::kernels
