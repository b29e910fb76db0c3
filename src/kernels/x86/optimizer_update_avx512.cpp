// The optimizer loops (optimizer_update_loops.hpp) built for AVX-512F: 16 lanes per division
// and square root. Compiled with -mavx512f -ffp-contract=off: no contraction into FMA, so
// every element rounds as the reference does.
#include "../optimizer_update_loops.hpp"

namespace seatorch::kernels {

void sgd_update_avx512(const SgdUpdate& u, std::size_t begin, std::size_t end) { sgd_loop(u, begin, end); }
void adam_update_avx512(const AdamUpdate& u, std::size_t begin, std::size_t end) { adam_loop(u, begin, end); }

}  // namespace seatorch::kernels
