// The optimizer loops' reference build (the baseline ISA) and the dispatch by CPU feature.
#include "seatorch/kernels/optimizer_update.hpp"

#include "cpu_isa.hpp"
#include "optimizer_update_loops.hpp"

#include <vector>

namespace seatorch::kernels {

void sgd_update_ref(const SgdUpdate& u, std::size_t begin, std::size_t end) { sgd_loop(u, begin, end); }
void adam_update_ref(const AdamUpdate& u, std::size_t begin, std::size_t end) { adam_loop(u, begin, end); }

namespace {

const UpdateKernel& fastest() {
  static const UpdateKernel& kernel = update_kernels().back();
  return kernel;
}

}  // namespace

std::span<const UpdateKernel> update_kernels() {
  static const std::vector<UpdateKernel> kernels = builds_this_cpu_runs<UpdateKernel>({
    {Isa::kBaseline, {"ref", sgd_update_ref, adam_update_ref}},
#if defined(__x86_64__)
        {Isa::kAvx2, {"avx2", sgd_update_avx2, adam_update_avx2}},
        {Isa::kAvx512f, {"avx512", sgd_update_avx512, adam_update_avx512}},
#endif
  });
  return kernels;
}

void sgd_update(const SgdUpdate& u, std::size_t begin, std::size_t end) { fastest().sgd(u, begin, end); }
void adam_update(const AdamUpdate& u, std::size_t begin, std::size_t end) { fastest().adam(u, begin, end); }

}  // namespace seatorch::kernels
