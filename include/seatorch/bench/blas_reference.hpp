// The system BLAS as the bench's yardstick: cblas_sgemm on the same operands as our kernels.
//
// It exists only when CMake's optional find_package(BLAS) found a CBLAS at configure time
// (Debian: libopenblas-dev), and it is opened on first use rather than linked; seatorch itself
// never calls BLAS. OpenBLAS runs on as many threads as seatorch's own loops (core::threads(),
// 1 unless asked), so both use the same cores.
#pragma once

#include "seatorch/kernels/matmul.hpp"

#include <string>

namespace seatorch::bench {

// A description of the BLAS this build links, e.g. "OpenBLAS 0.3.21 ... (core Zen)"; empty
// when the build has none.
std::string blas_name();

// Why blas_name() is empty: "none in this build ...", or why the build's BLAS could not be
// opened (it is loaded on first use); empty when it is there.
std::string blas_missing_reason();

// The core OpenBLAS chose for this CPU (openblas_get_corename(): "Cooperlake", "Prescott");
// empty for another BLAS or none.
std::string blas_core_name();

// C = op(A) * op(B) (or C += with args.accumulate) through cblas_sgemm. Requires a BLAS
// (blas_name() not empty); throws std::logic_error otherwise.
void blas_sgemm(const kernels::MatmulArgs& args);

}  // namespace seatorch::bench
