// The optimizers' per-element update loops (train/optimizer.hpp computes their coefficients):
// SGD with momentum, dampening, Nesterov and weight decay; Adam with L2 or decoupled (AdamW)
// weight decay. Each statement of a loop is one of PyTorch's tensor ops applied per element,
// in PyTorch's order, so a step gives PyTorch's floats.
//
// sgd_update_ref and adam_update_ref are the specification, built for the baseline ISA.
// sgd_update and adam_update run the same loops compiled for AVX2 where the CPU has it, with
// floating-point contraction off: the same IEEE operations (a square root and two divisions
// per Adam element, each correctly rounded) on eight lanes instead of four, so the same bits
// (tests/kernels/update_test.cpp checks them against the reference). Adam spent an eighth
// of a default-recipe epoch there on four lanes.
// Deliberately not here: the coefficients, the state, threads (the caller splits ranges).
#pragma once

#include <cstddef>
#include <string_view>

namespace seatorch::kernels {

// One step of one parameter: its buffers and the step's coefficients in float.
struct SgdUpdate {
  float* p = nullptr;        // (numel) the parameter
  const float* g = nullptr;  // (numel) its gradient
  float* b = nullptr;        // (numel) the momentum buffer (unused without momentum)
  float wd = 0, mu = 0, keep = 0, neg_lr = 0;
  bool first = false, nesterov = false;
};

struct AdamUpdate {
  float* p = nullptr;        // (numel) the parameter
  const float* g = nullptr;  // (numel) its gradient
  float* m = nullptr;        // (numel) first moment
  float* v = nullptr;        // (numel) second moment
  float wd = 0, shrink = 0, b1 = 0, b2 = 0, one_minus_b1 = 0, one_minus_b2 = 0;
  float correction2_sqrt = 0, neg_step_size = 0, eps = 0;
  bool decoupled = false, l2 = false;
};

// Elements [begin, end) of the parameter, updated in place (the gradient is not touched).
void sgd_update_ref(const SgdUpdate& u, std::size_t begin, std::size_t end);
void adam_update_ref(const AdamUpdate& u, std::size_t begin, std::size_t end);
void sgd_update(const SgdUpdate& u, std::size_t begin, std::size_t end);
void adam_update(const AdamUpdate& u, std::size_t begin, std::size_t end);

// The loops sgd_update and adam_update run on this CPU: "avx2" or "ref".
std::string_view update_kernel();

}  // namespace seatorch::kernels
