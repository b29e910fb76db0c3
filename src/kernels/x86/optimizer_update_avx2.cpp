// The optimizer loops (optimizer_update_loops.hpp) built for AVX2: 8 lanes per division and
// square root instead of SSE's 4. Compiled with -mavx2 -ffp-contract=off and nothing else:
// no FMA, so every element rounds as the reference does.
#include "../optimizer_update_loops.hpp"

namespace seatorch::kernels {

void sgd_update_avx2(const SgdUpdate& u, std::size_t begin, std::size_t end) { sgd_loop(u, begin, end); }
void adam_update_avx2(const AdamUpdate& u, std::size_t begin, std::size_t end) { adam_loop(u, begin, end); }

}  // namespace seatorch::kernels
