// int8 gemm with AVX-512 VNNI: vpdpbusd multiplies 4 unsigned activation bytes by 4 signed
// weight bytes and adds the 4 products to each int32 lane, exactly (no saturation); and the
// fused layer built from it and the AVX-512 requantization (int8_gemm_tiles.hpp,
// int8_avx512_shared.hpp).
// Compiled with -mavx512f -mavx512bw -mavx512vnni; nothing else may be.
#include "int8_avx512_shared.hpp"
#include "int8_dot_probe.hpp"

#include <immintrin.h>

namespace seatorch::kernels::x86 {
namespace {

struct Avx512Vnni : ZmmPolicy {
  static constexpr std::size_t kRows = kAvx512Rows;
  static constexpr std::size_t kBlockBytes = kRows * 4;
  // 6 x 4 accumulators + 4 weight vectors + the broadcast: 29 of 32 registers. Each weight
  // vector streamed from L2 feeds 6 images: with two VNNI ports (Intel) a 4 x 4 tile needed 32
  // bytes per cycle from L2 and reached 57-59 % of the ceiling, 6 x 4 59-63 % (on Zen 4's
  // one port both ran at 78-82 %; DECISIONS 47).
  static constexpr int kMR = kAvx512TileImages;
  static constexpr int kNR = 4;
  // Each row block's weights, one 64-byte line per group of 4 activations, are asked for 8
  // groups ahead: the hardware prefetcher alone left 4 streams per tile short of L1 (5-9 %
  // more images per second on the model-207 Xeon, DECISIONS 53).
  static constexpr std::size_t kPrefetchSteps = 8;
  static constexpr bool kUnrollSteps = false;
  // Throughput x latency of vpdpbusd with room to spare: Zen 4 issues one 512-bit per cycle
  // with 4 cycles latency; cores with two VNNI ports and 5 cycles need 10.
  static constexpr std::size_t kProbeChains = 12;
  using Act = __m512i;

  static Acc sums(const std::int32_t* v, std::size_t count) { return _mm512_maskz_loadu_epi32(lanes_of(count, 0), v); }
  static Acc sums(std::uint32_t x) { return _mm512_set1_epi32(static_cast<std::int32_t>(x)); }
  using ActWord = std::uint32_t;  // A as it is: bytes
  static void prepare(Operands&) {}
  static Act broadcast(ActWord four) { return _mm512_set1_epi32(static_cast<int>(four)); }
  static Acc dot(Acc acc, Act a, Acc b) { return _mm512_dpbusd_epi32(acc, a, b); }
  static void store(std::int32_t* c, Acc acc) { _mm512_storeu_si512(c, acc); }
};

}  // namespace

void gemm_avx512vnni(const Int8GemmArgs& args) { gemm_int32<Avx512Vnni>(args); }
void layer_avx512vnni(const Int8LayerArgs& args) { layer_fused<Avx512Vnni>(args); }
double dot_probe_avx512vnni(std::size_t rounds) { return dot_probe<Avx512Vnni>(rounds); }

}  // namespace seatorch::kernels::x86
