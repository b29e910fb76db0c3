// cblas_sgemm behind the MatmulArgs interface, when the build found a BLAS
// (SEATORCH_HAVE_BLAS; SEATORCH_BLAS_OPENBLAS when it is OpenBLAS, whose thread count and
// version we can query).
#include "seatorch/bench/blas_reference.hpp"

#include "seatorch/core/parallel.hpp"

#include <stdexcept>

#if SEATORCH_HAVE_BLAS
#include <cblas.h>
#endif

namespace seatorch::bench {

#if SEATORCH_HAVE_BLAS

namespace {

CBLAS_TRANSPOSE cblas_transpose(kernels::Transpose t) {
  return t == kernels::Transpose::kYes ? CblasTrans : CblasNoTrans;
}

// As many threads as seatorch's own loops use (core/parallel.hpp), so the two compare on
// the same cores; OpenBLAS would otherwise take every core.
void use_our_thread_count() {
#if SEATORCH_BLAS_OPENBLAS
  static std::size_t current = 0;  // the bench calls the BLAS from one thread only
  const std::size_t threads = core::threads();
  if (threads != current) {
    openblas_set_num_threads(static_cast<int>(threads));
    current = threads;
  }
#endif
}

}  // namespace

std::string blas_name() {
#if SEATORCH_BLAS_OPENBLAS
  return std::string(openblas_get_config()) + " (core " + openblas_get_corename() + ")";
#else
  return "CBLAS";
#endif
}

std::string blas_core_name() {
#if SEATORCH_BLAS_OPENBLAS
  return openblas_get_corename();
#else
  return {};
#endif
}

void blas_sgemm(const kernels::MatmulArgs& args) {
  use_our_thread_count();
  const auto [m, n, k] = args.shape;
  cblas_sgemm(CblasRowMajor, cblas_transpose(args.ta), cblas_transpose(args.tb), static_cast<int>(m),
              static_cast<int>(n), static_cast<int>(k), 1.0f, args.a, static_cast<int>(args.lda), args.b,
              static_cast<int>(args.ldb), args.accumulate ? 1.0f : 0.0f, args.c, static_cast<int>(args.ldc));
}

#else

std::string blas_name() { return {}; }

std::string blas_core_name() { return {}; }

void blas_sgemm(const kernels::MatmulArgs&) {
  throw std::logic_error("blas_sgemm: this build has no BLAS (install libopenblas-dev and reconfigure)");
}

#endif

}  // namespace seatorch::bench
