// The `avx512` kernel: the packed GEMM driver with an AVX-512F micro-kernel, and the
// AVX-512 FMA-throughput probe. The only file built with -mavx512f; the registry calls it
// only when the CPU and the OS support AVX-512 state.
//
// Micro-tile 8 x 32: sixteen zmm accumulators (of 32 registers). On Zen 4 a 512-bit FMA
// runs on both 256-bit pipes, so the peak is the same as AVX2's; what AVX-512 brings is
// the register count (a taller tile, fewer loads per FMA) and masked tails.
#include "../fma_probe.hpp"
#include "../gemm_driver.hpp"
#include "../isa_kernels.hpp"

#include <immintrin.h>

namespace seatorch::kernels {
namespace {

struct Avx512Vec {
  using Reg = __m512;
  static constexpr std::size_t kLanes = 16;

  static __mmask16 mask(std::size_t n) { return static_cast<__mmask16>((1u << n) - 1u); }
  static Reg zero() { return _mm512_setzero_ps(); }
  static Reg load(const float* p) { return _mm512_loadu_ps(p); }
  static Reg load_n(const float* p, std::size_t n) { return _mm512_maskz_loadu_ps(mask(n), p); }
  static Reg broadcast(const float* p) { return _mm512_set1_ps(*p); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm512_fmadd_ps(a, b, c); }
  static Reg add(Reg a, Reg b) { return _mm512_add_ps(a, b); }
  static void store(float* p, Reg r) { _mm512_storeu_ps(p, r); }
  static void store_n(float* p, Reg r, std::size_t n) { _mm512_mask_storeu_ps(p, mask(n), r); }
};

constexpr std::size_t kMr = 8;
constexpr std::size_t kNv = 2;
constexpr Blocking kBlocking{.mc = 128, .kc = 256, .nc = 2048};

}  // namespace

void matmul_avx512(const MatmulArgs& args) { gemm<Avx512Vec, kMr, kNv>(args, kBlocking); }

double fma_probe_avx512(std::size_t rounds) { return fma_probe<Avx512Vec>(rounds); }

}  // namespace seatorch::kernels
