// The `blocked` kernel: the packed GEMM driver with a micro-kernel in plain C++.
//
// Its "vector register" is a GCC/Clang vector of four floats, written with ordinary
// operators and lowered to whatever the baseline target offers (SSE2 on x86-64, NEON on
// AArch64, scalar code elsewhere): fast anywhere without a line of intrinsics, and the
// fallback on CPUs without a dedicated kernel. (Plain float arrays were tried first: GCC 12
// vectorised the depth loop instead of the tile and ran 8x slower.)
// Deliberately not here: intrinsics, ISA flags (this file gets none).
#include "gemm_driver.hpp"
#include "isa_kernels.hpp"
#include "sparse_driver.hpp"

#include <algorithm>
#include <cstring>

namespace seatorch::kernels {
namespace {

struct PortableVec {
  static constexpr std::size_t kLanes = 4;
  // A GCC/Clang vector of four floats: plain arithmetic operators, lowered to SSE, NEON or
  // whatever 128-bit (or scalar) registers the baseline target has.
  using Reg = float __attribute__((vector_size(kLanes * sizeof(float))));

  static Reg zero() { return Reg{}; }
  static Reg load(const float* p) {
    Reg r;
    std::memcpy(&r, p, sizeof r);
    return r;
  }
  // n < kLanes always; the bound says so for GCC 12, whose -Warray-bounds cannot see it
  // through the sparse tile's choice of width.
  static Reg load_n(const float* p, std::size_t n) {
    Reg r{};
    for (std::size_t l = 0; l < n && l < kLanes; ++l) r[l] = p[l];
    return r;
  }
  static Reg broadcast(const float* p) { return Reg{} + *p; }
  // No fused multiply-add: the baseline targets have none, and std::fma would be a call.
  static Reg fma(Reg a, Reg b, Reg c) { return a * b + c; }
  static Reg add(Reg a, Reg b) { return a + b; }
  static Reg relu(Reg x) {
    for (std::size_t l = 0; l < kLanes; ++l) x[l] = std::max(x[l], 0.0f);
    return x;
  }
  static void store(float* p, Reg r) { std::memcpy(p, &r, sizeof r); }
  static void store_n(float* p, Reg r, std::size_t n) {
    for (std::size_t l = 0; l < n && l < kLanes; ++l) p[l] = r[l];
  }
  static void transpose(Reg* r) {
    for (std::size_t i = 1; i < kLanes; ++i) {
      for (std::size_t j = 0; j < i; ++j) {
        const float t = r[i][j];
        r[i][j] = r[j][i];
        r[j][i] = t;
      }
    }
  }
};

// 4 x 8: eight 128-bit accumulators, two for B's row and one broadcast of SSE2's sixteen
// registers (taller or wider tiles spilled and measured slower).
constexpr std::size_t kMr = 4;
constexpr std::size_t kNv = 2;
constexpr Blocking kBlocking{.mc = 128, .kc = 256, .nc = 2048};
// The sparse product's rows 4 registers (16 floats) wide: a row's pass sum takes 4 of SSE2's
// 16 registers.
constexpr std::size_t kSparseNv = 4;
// Each sum walked in chunks of kc rows (chunk_bytes_of_depth says why).
constexpr std::size_t kSparseChunkBytes = chunk_bytes_of_depth<PortableVec, kSparseNv>(kBlocking.kc);

}  // namespace

void matmul_blocked(const MatmulArgs& args, const Epilogue& epilogue) {
  gemm<PortableVec, kMr, kNv>(args, epilogue, kBlocking);
}

void sparse_matmul_blocked(const SparseMatmulArgs& args, const Epilogue& epilogue) {
  sparse_columns<PortableVec, kSparseNv>(args, epilogue, kSparseChunkBytes, kSparsePackFromLd);
}

void compress_rows_blocked(const float* a, std::size_t ld, std::size_t i0, std::size_t i1, SparseRows& out) {
  compress_rows_loop<PortableVec>(a, ld, i0, i1, out);
}

}  // namespace seatorch::kernels
