// The update loops (kernels/update.hpp) built for AVX2, eight lanes. Compiled with
// -mavx2 -ffp-contract=off and without -mfma: no multiply-add may be fused, so every element
// gets the reference's operations and bits. update.cpp calls these only on AVX2 CPUs.
#include "../update_loops.hpp"

namespace seatorch::kernels {
namespace {

struct Avx2 {};

}  // namespace

void sgd_update_avx2(const SgdUpdate& u, std::size_t begin, std::size_t end) { sgd_loop<Avx2>(u, begin, end); }

void adam_update_avx2(const AdamUpdate& u, std::size_t begin, std::size_t end) { adam_loop<Avx2>(u, begin, end); }

}  // namespace seatorch::kernels
