// int8 gemm with AVX-VNNI: the VEX-encoded vpdpbusd, on 256-bit vectors. It is the
// avx512vnni kernel's instruction at half the width (4 u8*s8 products summed into each of 8
// int32 lanes, exactly), for the CPUs that have it without AVX-512: Intel's client cores
// since Alder Lake, and its E-core Xeons. Against the avx2 kernel it needs neither the int16
// copy of A and B nor the add after each vpmaddwd: one instruction does twice the products.
//
// A stays bytes (one 32-bit broadcast per 4 activations), B is packed as int8 in blocks of 8
// rows (kAvxVnniRows); the byte sums and the requantization are the avx2 kernel's
// (YmmPolicy, int8_avx2_shared.hpp).
// Compiled with -mavx2 -mavxvnni; nothing else may be.
#include "int8_avx2_shared.hpp"
#include "int8_dot_probe.hpp"

#include <immintrin.h>

namespace seatorch::kernels::x86 {
namespace {

struct AvxVnni : YmmPolicy {
  static constexpr std::size_t kRows = kAvxVnniRows;
  static constexpr std::size_t kBlockBytes = kRows * 4;
  // 6 x 2 accumulators, 2 weight vectors and the broadcast: 15 of the 16 ymm registers. Each
  // weight vector loaded feeds 6 images, as in the avx512vnni tile.
  static constexpr int kMR = kAvxVnniTileImages;
  static constexpr int kNR = 2;
  static constexpr std::size_t kPrefetchSteps = 0;
  static constexpr bool kUnrollSteps = false;
  // Throughput x latency of vpdpbusd (two a cycle, 5 cycles, on Intel's cores), and few
  // enough to leave the operands their registers.
  static constexpr std::size_t kProbeChains = 12;
  using Act = __m256i;  // 4 activation bytes, repeated 8 times
  using ActWord = std::uint32_t;

  static Acc sums(const std::int32_t* v, std::size_t count) {
    if (count >= kRows) return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v));
    return _mm256_maskload_epi32(v, first_lanes(count));  // the masked-off values are not read
  }
  static Acc sums(std::uint32_t x) { return _mm256_set1_epi32(static_cast<int>(x)); }
  static void prepare(Operands&) {}
  static Act broadcast(ActWord four) { return _mm256_set1_epi32(static_cast<int>(four)); }
  static Acc dot(Acc acc, Act a, Acc b) { return _mm256_dpbusd_avx_epi32(acc, a, b); }
  static void store(std::int32_t* c, Acc acc) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(c), acc); }
};

}  // namespace

void gemm_avxvnni(const Int8GemmArgs& args) { gemm_int32<AvxVnni>(args); }
void layer_avxvnni(const Int8LayerArgs& args) { layer_fused<AvxVnni>(args); }
double dot_probe_avxvnni(std::size_t rounds) { return dot_probe<AvxVnni>(rounds); }

}  // namespace seatorch::kernels::x86
