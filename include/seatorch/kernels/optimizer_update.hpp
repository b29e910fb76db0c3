// The elementwise loops of the optimizers: one SGD (momentum, Nesterov, weight decay) or
// Adam/AdamW step over a range of one parameter's elements, in PyTorch's float operation
// order (train/optimizer.hpp holds the coefficients and the state; this is only the loop).
//
// sgd_update_ref() and adam_update_ref() are the specification. sgd_update() and
// adam_update() run the widest build of the same loops this CPU has (AVX2 or AVX-512 on x86):
// the same IEEE operations in the same order on every element, with no contraction into FMA,
// so the same bits (tested against the references element for element).
// Why a wider build matters: Adam's two divisions and its square root per element run on the
// divider, which retires a 256-bit vector about as fast as a 128-bit one on the CPUs measured,
// so the baseline x86-64 build (SSE) took twice as long as the AVX2 one; Zen 5's also retires
// a 512-bit one faster than two 256-bit ones (Adam 1.7x faster than AVX2 there; Zen 4 splits
// it in two halves and runs both builds alike; DECISIONS 44, 73).
// Deliberately not here: the thread split (the optimizer splits by rows), the coefficients'
// derivation from the options, other optimizers.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace seatorch::kernels {

// One SGD step of one parameter: its buffers and the step's coefficients in float.
struct SgdUpdate {
  float* p = nullptr;        // (numel) the parameter
  const float* g = nullptr;  // (numel) its gradient
  float* b = nullptr;        // (numel) the momentum buffer (unused without momentum)
  float wd = 0, mu = 0, keep = 0, neg_lr = 0;
  bool first = false, nesterov = false;
};

// One Adam or AdamW step of one parameter.
struct AdamUpdate {
  float* p = nullptr;        // (numel) the parameter
  const float* g = nullptr;  // (numel) its gradient
  float* m = nullptr;        // (numel) first moment
  float* v = nullptr;        // (numel) second moment
  float wd = 0, shrink = 0, b1 = 0, b2 = 0, one_minus_b1 = 0, one_minus_b2 = 0;
  float correction2_sqrt = 0, neg_step_size = 0, eps = 0;
  bool decoupled = false, l2 = false;
};

// A step of one parameter's optimizer handed its gradient a block at a time, by the product
// that makes it (SparseMatmulArgs::update), instead of reading it back from memory after the
// backward: each block is updated while its gradient is still in registers' reach (L1). One
// of sgd and adam is set; its `g` is ignored. The elements and the operations are those of
// sgd_update or adam_update over the whole parameter, so the bits are too.
struct BlockUpdate {
  const SgdUpdate* sgd = nullptr;
  const AdamUpdate* adam = nullptr;

  // The parameter's elements at[r * ld + j] (r < rows, j < cols), `at` inside the parameter,
  // updated with gradient g[r * ldg + j].
  void apply(const float* g, std::size_t ldg, const float* at, std::size_t ld, std::size_t rows,
             std::size_t cols) const;
};

// Elements [begin, end) of the parameter.
void sgd_update_ref(const SgdUpdate& u, std::size_t begin, std::size_t end);
void adam_update_ref(const AdamUpdate& u, std::size_t begin, std::size_t end);
void sgd_update(const SgdUpdate& u, std::size_t begin, std::size_t end);
void adam_update(const AdamUpdate& u, std::size_t begin, std::size_t end);

struct UpdateKernel {
  std::string_view name;  // "ref", "avx2", "avx512"
  void (*sgd)(const SgdUpdate& u, std::size_t begin, std::size_t end);
  void (*adam)(const AdamUpdate& u, std::size_t begin, std::size_t end);
};

// The builds this CPU can run, the reference first and the one sgd_update() runs last.
std::span<const UpdateKernel> update_kernels();

}  // namespace seatorch::kernels
