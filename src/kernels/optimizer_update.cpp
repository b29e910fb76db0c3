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

void BlockUpdate::apply(const float* g, std::size_t ldg, const float* at, std::size_t ld, std::size_t rows,
                        std::size_t cols) const {
  const float* p = sgd != nullptr ? sgd->p : adam->p;
  const auto first = static_cast<std::size_t>(at - p);
  // Rows that lie end to end in both the gradient and the parameter are one range: one call
  // for a whole block of a 128-wide layer, not one per row.
  const std::size_t runs = ldg == cols && ld == cols ? 1 : rows;
  const std::size_t length = runs == 1 ? rows * cols : cols;
  for (std::size_t r = 0; r < runs; ++r) {
    const std::size_t e = first + r * ld;
    if (sgd != nullptr) {
      SgdUpdate u = *sgd;
      u.p += e;
      u.b = u.b == nullptr ? nullptr : u.b + e;
      u.g = g + r * ldg;
      sgd_update(u, 0, length);
    } else {
      AdamUpdate u = *adam;
      u.p += e;
      u.m += e;
      u.v += e;
      u.g = g + r * ldg;
      adam_update(u, 0, length);
    }
  }
}

}  // namespace seatorch::kernels
