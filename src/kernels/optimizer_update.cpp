// The optimizer loops' reference build (the baseline ISA) and the dispatch by CPU feature.
#include "seatorch/kernels/optimizer_update.hpp"

#include "optimizer_update_loops.hpp"

#include <vector>

namespace seatorch::kernels {

void sgd_update_ref(const SgdUpdate& u, std::size_t begin, std::size_t end) { sgd_loop(u, begin, end); }
void adam_update_ref(const AdamUpdate& u, std::size_t begin, std::size_t end) { adam_loop(u, begin, end); }

namespace {

std::vector<UpdateKernel> available() {
  std::vector<UpdateKernel> kernels{{"ref", sgd_update_ref, adam_update_ref}};
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2")) kernels.push_back({"avx2", sgd_update_avx2, adam_update_avx2});
#endif
  return kernels;
}

const UpdateKernel& fastest() {
  static const UpdateKernel& kernel = update_kernels().back();
  return kernel;
}

}  // namespace

std::span<const UpdateKernel> update_kernels() {
  static const std::vector<UpdateKernel> kernels = available();
  return kernels;
}

void sgd_update(const SgdUpdate& u, std::size_t begin, std::size_t end) { fastest().sgd(u, begin, end); }
void adam_update(const AdamUpdate& u, std::size_t begin, std::size_t end) { fastest().adam(u, begin, end); }

}  // namespace seatorch::kernels
