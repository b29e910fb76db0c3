// matmul(): the dispatch point. Until the SIMD kernels land it is the reference kernel.
#include "seatorch/kernels/matmul.hpp"

namespace seatorch::kernels {

void matmul(const MatmulArgs& args) { matmul_ref(args); }

}  // namespace seatorch::kernels
