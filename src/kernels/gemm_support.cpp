// Packing buffers, the transposed problem and degenerate shapes for the GEMM driver (see
// gemm_support.hpp).
#include "gemm_support.hpp"

#include "epilogue_rows.hpp"

#include <algorithm>
#include <memory>
#include <new>

namespace seatorch::kernels {
namespace {

constexpr std::align_val_t kAlignment{64};  // a cache line and a full AVX-512 register

struct AlignedDelete {
  void operator()(float* p) const { ::operator delete[](p, kAlignment); }
};

struct Buffer {
  std::unique_ptr<float[], AlignedDelete> data;
  std::size_t capacity = 0;  // floats
};

}  // namespace

float* pack_buffer(PackSlot slot, std::size_t floats) {
  thread_local Buffer buffers[2];
  Buffer& buffer = buffers[slot == PackSlot::kA ? 0 : 1];
  if (buffer.capacity < floats) {
    buffer.data.reset(static_cast<float*>(::operator new[](floats * sizeof(float), kAlignment)));
    buffer.capacity = floats;
  }
  return buffer.data.get();
}

MatmulArgs transposed_problem(const MatmulArgs& args) {
  const auto flip = [](Transpose t) { return t == Transpose::kYes ? Transpose::kNo : Transpose::kYes; };
  MatmulArgs t = args;
  t.shape = {args.shape.n, args.shape.m, args.shape.k};
  t.a = args.b;
  t.lda = args.ldb;
  t.ta = flip(args.tb);
  t.b = args.a;
  t.ldb = args.lda;
  t.tb = flip(args.ta);
  return t;
}

void epilogue_without_product(const Epilogue& epilogue, bool accumulate, float* c, std::size_t ldc, std::size_t m,
                              std::size_t n) {
  if (!accumulate) {
    if (epilogue.bias != nullptr) {
      start_from_bias(epilogue.bias, c, ldc, m, n);
    } else {
      for (std::size_t i = 0; i < m; ++i) std::fill_n(c + i * ldc, n, 0.0f);
    }
  }
  if (epilogue.relu) clamp_at_zero(c, ldc, m, n);
}

bool matmul_degenerate(const MatmulArgs& args, const Epilogue& epilogue) {
  const auto [m, n, k] = args.shape;
  if (m == 0 || n == 0) return true;
  if (k != 0) return false;
  epilogue_without_product(epilogue, args.accumulate, args.c, args.ldc, m, n);
  return true;
}

}  // namespace seatorch::kernels
