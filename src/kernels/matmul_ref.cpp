// matmul_ref: the specification of every matmul kernel. Handles all strides and both
// transpose flags; favours clarity over speed.
#include "seatorch/kernels/matmul.hpp"

namespace seatorch::kernels {

void matmul_ref(const MatmulArgs& args) {
  const auto [m, n, k] = args.shape;
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (std::size_t p = 0; p < k; ++p) {
        const float a = args.ta == Transpose::kYes ? args.a[p * args.lda + i] : args.a[i * args.lda + p];
        const float b = args.tb == Transpose::kYes ? args.b[j * args.ldb + p] : args.b[p * args.ldb + j];
        sum += a * b;
      }
      float& c = args.c[i * args.ldc + j];
      c = args.accumulate ? c + sum : sum;
    }
  }
}

}  // namespace seatorch::kernels
