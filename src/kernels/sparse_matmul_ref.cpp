// sparse_matmul_ref: the specification of every sparse kernel, matmul_ref()'s loops (see
// matmul_ref.cpp) over a row's nonzeros only: each C element the float32 sum of its nonzero
// products in increasing p, started from 0 and then added to C when accumulating, or
// handed, a row at a time, to the update that consumes C.
// Favours clarity over speed.
#include "seatorch/kernels/sparse_matmul.hpp"

#include <vector>

namespace seatorch::kernels {

void sparse_matmul_ref(const SparseMatmulArgs& args) {
  const SparseRows& a = *args.a;
  const std::size_t n = args.n;
  std::vector<float> sum(n);  // (n): row i of A * op(B)
  for (std::size_t i = 0; i < a.rows; ++i) {
    sum.assign(n, 0.0f);
    for (std::size_t e = a.begin(i); e < a.end(i); ++e) {
      const std::size_t p = a.column[e];
      for (std::size_t j = 0; j < n; ++j) {
        const float b = args.tb == Transpose::kYes ? args.b[j * args.ldb + p] : args.b[p * args.ldb + j];
        sum[j] += a.value[e] * b;
      }
    }
    if (args.update != nullptr) {  // C's row i is the gradient of the parameter's row i
      args.update->apply(sum.data(), n, args.c + i * args.ldc, args.ldc, 1, n);
      continue;
    }
    for (std::size_t j = 0; j < n; ++j) {
      float& c = args.transposed_c ? args.c[j * args.ldc + i] : args.c[i * args.ldc + j];
      c = args.accumulate ? c + sum[j] : sum[j];
    }
  }
}

}  // namespace seatorch::kernels
