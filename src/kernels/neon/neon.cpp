// The `neon` kernel: the packed GEMM driver with an AArch64 NEON micro-kernel, and the
// NEON FMA-throughput probe. NEON is part of every AArch64 CPU, so it needs no flags and
// no run-time check; it is built only for AArch64 targets. Deliberately not here: the
// driver's loops (gemm_driver.hpp) and threads.
//
// Micro-tile 8 x 12: twenty-four q-register accumulators, three for B's row and one
// broadcast, of the 32 registers.
#include "../fma_probe.hpp"
#include "../gemm_driver.hpp"
#include "../isa_kernels.hpp"
#include "../sparse_driver.hpp"

#include <arm_neon.h>

namespace seatorch::kernels {
namespace {

struct NeonVec {
  using Reg = float32x4_t;
  static constexpr std::size_t kLanes = 4;

  static Reg zero() { return vdupq_n_f32(0.0f); }
  static Reg load(const float* p) { return vld1q_f32(p); }
  // n < kLanes always; the bound says so for GCC 12, whose -Warray-bounds cannot see it
  // through the driver's choice of tile width.
  static Reg load_n(const float* p, std::size_t n) {
    float lanes[kLanes] = {};
    for (std::size_t l = 0; l < n && l < kLanes; ++l) lanes[l] = p[l];
    return vld1q_f32(lanes);
  }
  static Reg broadcast(const float* p) { return vld1q_dup_f32(p); }
  static Reg fma(Reg a, Reg b, Reg c) { return vfmaq_f32(c, a, b); }
  static Reg add(Reg a, Reg b) { return vaddq_f32(a, b); }
  // x < 0 ? 0 : x, as std::max(x, 0.0f): vmaxq_f32 would turn -0 into +0.
  static Reg relu(Reg x) { return vbslq_f32(vcltq_f32(x, vdupq_n_f32(0.0f)), vdupq_n_f32(0.0f), x); }
  static void store(float* p, Reg r) { vst1q_f32(p, r); }
  static void store_n(float* p, Reg r, std::size_t n) {
    float lanes[kLanes];
    vst1q_f32(lanes, r);
    for (std::size_t l = 0; l < n && l < kLanes; ++l) p[l] = lanes[l];
  }
  // 4 x 4: transpose 2 x 2 blocks of pairs (trn), then recombine the 64-bit halves.
  static void transpose(Reg* r) {
    const float32x4x2_t p01 = vtrnq_f32(r[0], r[1]);
    const float32x4x2_t p23 = vtrnq_f32(r[2], r[3]);
    r[0] = vcombine_f32(vget_low_f32(p01.val[0]), vget_low_f32(p23.val[0]));
    r[1] = vcombine_f32(vget_low_f32(p01.val[1]), vget_low_f32(p23.val[1]));
    r[2] = vcombine_f32(vget_high_f32(p01.val[0]), vget_high_f32(p23.val[0]));
    r[3] = vcombine_f32(vget_high_f32(p01.val[1]), vget_high_f32(p23.val[1]));
  }
};

constexpr std::size_t kMr = 8;
constexpr std::size_t kNv = 3;
constexpr Blocking kBlocking{.mc = 128, .kc = 256, .nc = 2040};
// The sparse product's rows 8 registers (32 floats) wide: a row's pass sum takes 8 of the 32
// registers.
constexpr std::size_t kSparseNv = 8;
// Each sum walked in chunks of kc rows (chunk_bytes_of_depth says why).
constexpr std::size_t kSparseChunkBytes = chunk_bytes_of_depth<NeonVec, kSparseNv>(kBlocking.kc);

}  // namespace

void matmul_neon(const MatmulArgs& args, const Epilogue& epilogue) {
  gemm<NeonVec, kMr, kNv>(args, epilogue, kBlocking);
}

void sparse_matmul_neon(const SparseMatmulArgs& args, const Epilogue& epilogue) {
  sparse_columns<NeonVec, kSparseNv>(args, epilogue, kSparseChunkBytes, kSparsePackFromLd);
}

void compress_rows_neon(const float* a, std::size_t ld, std::size_t i0, std::size_t i1, SparseRows& out) {
  compress_rows_loop<NeonVec>(a, ld, i0, i1, out);
}

double fma_probe_neon(std::size_t rounds) { return fma_probe<NeonVec>(rounds); }

}  // namespace seatorch::kernels
