// The optimizer loops of kernels/optimizer_update.hpp, written once and compiled once per
// ISA: by optimizer_update.cpp for the reference, by x86/optimizer_update_avx2.cpp with
// -mavx2 and by x86/optimizer_update_avx512.cpp with -mavx512f. Everything here has internal
// linkage (the unnamed namespace) and calls no standard-library function (the square root is
// the builtin), so no copy compiled with one file's ISA flags can be picked by the linker for
// code that runs on a CPU without that ISA.
#pragma once

#include "seatorch/kernels/optimizer_update.hpp"

namespace seatorch::kernels {

#if defined(__x86_64__)
// src/kernels/x86/optimizer_update_avx2.cpp: these loops built for AVX2 CPUs.
void sgd_update_avx2(const SgdUpdate& u, std::size_t begin, std::size_t end);
void adam_update_avx2(const AdamUpdate& u, std::size_t begin, std::size_t end);
// src/kernels/x86/optimizer_update_avx512.cpp: the same for AVX-512F CPUs.
void sgd_update_avx512(const SgdUpdate& u, std::size_t begin, std::size_t end);
void adam_update_avx512(const AdamUpdate& u, std::size_t begin, std::size_t end);
#endif

namespace {

// Optimizer state that would be subnormal is stored as zero. Under a gradient that stays
// zero (the weights of pixels that are black in every image) a momentum decays until it
// sticks at a subnormal for good: 0.9 * 2^-149 rounds back to 2^-149. Intel cores then take
// a microcode assist of about a hundred cycles on every operation that reads it (the SGD loop
// over a subnormal buffer measured 52x slower on a Xeon; AMD's Zen 4 runs it at full speed),
// which made the 784-128-10 optimizer phase 0.149 s instead of 0.022 s (DECISIONS 47). A
// parameter moved by such a state moves by less than half an ulp unless it is itself below
// about 2^-100, so the parameters come out as PyTorch's. The smallest normal float is written
// as a hex literal, so that no standard-library header is needed (see the top of the file).
inline float flush_subnormal(float x) {
  constexpr float kSmallestNormal = 0x1p-126f;
  return __builtin_fabsf(x) < kSmallestNormal ? 0.0f : x;
}

// PyTorch converts each Python-float coefficient to the tensor's dtype and computes
// add(x, y, alpha) as x + alpha*y; each statement below is one of its tensor ops, applied
// per element in one fused loop (same operations in the same order, so the same floats, but
// for the state's subnormals above), without touching the gradient. The coefficients are
// copied into locals first: read through the struct, any of them could alias the floats
// being written, and the compiler
// would reload them every element instead of vectorizing (5x slower). The loop-invariant
// branches are unswitched by the compiler.
inline void sgd_loop(const SgdUpdate& u, std::size_t begin, std::size_t end) {
  float* const p = u.p;
  const float* const g = u.g;
  float* const b = u.b;
  const float wd = u.wd;
  const float mu = u.mu;
  const float keep = u.keep;
  const float neg_lr = u.neg_lr;
  const bool decay = wd != 0.0f;
  const bool momentum = mu != 0.0f;
  const bool first = u.first;
  const bool nesterov = u.nesterov;
  for (std::size_t i = begin; i < end; ++i) {
    float d = decay ? g[i] + wd * p[i] : g[i];
    if (momentum) {
      b[i] = flush_subnormal(first ? d : b[i] * mu + keep * d);
      d = nesterov ? d + mu * b[i] : b[i];
    }
    p[i] = p[i] + neg_lr * d;
  }
}

inline void adam_loop(const AdamUpdate& u, std::size_t begin, std::size_t end) {
  float* const p = u.p;
  const float* const g = u.g;
  float* const m = u.m;
  float* const v = u.v;
  const float wd = u.wd;
  const float shrink = u.shrink;
  const float b1 = u.b1;
  const float b2 = u.b2;
  const float one_minus_b1 = u.one_minus_b1;
  const float one_minus_b2 = u.one_minus_b2;
  const float correction2_sqrt = u.correction2_sqrt;
  const float neg_step_size = u.neg_step_size;
  const float eps = u.eps;
  const bool decoupled = u.decoupled;
  const bool l2 = u.l2;
  for (std::size_t i = begin; i < end; ++i) {
    if (decoupled) p[i] = p[i] * shrink;
    const float gi = l2 ? g[i] + wd * p[i] : g[i];
    m[i] = flush_subnormal(m[i] * b1 + one_minus_b1 * gi);
    v[i] = flush_subnormal(v[i] * b2 + one_minus_b2 * gi * gi);
    const float denom = __builtin_sqrtf(v[i]) / correction2_sqrt + eps;
    p[i] = p[i] + neg_step_size * m[i] / denom;
  }
}

}  // namespace
}  // namespace seatorch::kernels
