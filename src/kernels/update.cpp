// The reference update loops (baseline ISA) and the dispatch to the AVX2 build of the same
// loops (kernels/update.hpp).
#include "seatorch/kernels/update.hpp"

#include "update_loops.hpp"

namespace seatorch::kernels {
namespace {

struct Baseline {};

bool use_avx2() {
#if defined(__x86_64__)
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
  }();
  return has;
#else
  return false;
#endif
}

}  // namespace

void sgd_update_ref(const SgdUpdate& u, std::size_t begin, std::size_t end) { sgd_loop<Baseline>(u, begin, end); }

void adam_update_ref(const AdamUpdate& u, std::size_t begin, std::size_t end) { adam_loop<Baseline>(u, begin, end); }

void sgd_update(const SgdUpdate& u, std::size_t begin, std::size_t end) {
#if defined(__x86_64__)
  if (use_avx2()) return sgd_update_avx2(u, begin, end);
#endif
  sgd_update_ref(u, begin, end);
}

void adam_update(const AdamUpdate& u, std::size_t begin, std::size_t end) {
#if defined(__x86_64__)
  if (use_avx2()) return adam_update_avx2(u, begin, end);
#endif
  adam_update_ref(u, begin, end);
}

std::string_view update_kernel() { return use_avx2() ? "avx2" : "ref"; }

}  // namespace seatorch::kernels
