// The integer steps of every int8 layer, and the two fused (quant/int8_engine.hpp runs them):
//
// gemm:        C (m, n) int32 = A (m, k) uint8 * B (n, k)^T int8    exact: no saturation
//   A holds the activations biased to unsigned (u = x + 128: the pixels themselves for the
//   first layer), B a layer's weights (out, in) row-major, C the raw dot products. Fast
//   kernels want B in their own layout: pack_b() once per layer, then gemm() on the packed
//   weights. A and C are row-major with row strides lda/ldc and any m, n, k; kernels read
//   exactly k bytes of each A row and write exactly n values of each C row.
// requantize:  one image's accumulators acc_j = row_constant_j + dots_j - correction to
//   int8 outputs y_j = requantize(acc_j, multiplier_j, shift_j, z_y, relu) and to
//   the next layer's u_j = y_j + 128, bit for bit. acc_j must fit int32 (the int8 model's
//   validation guarantees it); its terms may wrap.
// layer:       both for a whole batch, fused: gemm of the inputs u (m, k) with the packed
//   weights, the correction of each image s computed from its own inputs,
//   correction_s = z_w * sum_i (u_si - 128), and requantize to the next layer's u (m, n).
//   This is what inference runs: fast kernels requantize each register tile while it is
//   in L1 and never write the int32 dot products. The reference is gemm + requantize.
//
// Kernels (int8_kernel_names() lists those this CPU runs, fastest first):
//   "amx"         tdpbusd on AMX tiles: 16 images x 64 inputs times 64 inputs x 16 outputs per
//                 instruction (Sapphire Rapids and later, under Linux 5.16+).
//   "avx512vnni"  vpdpbusd: 4 u8*s8 products summed into each int32 lane per instruction.
//   "avxvnni"     the same on 256-bit vectors (AVX-VNNI: CPUs with it but without AVX-512).
//   "avx512bw"    vpmaddwd on both operands widened to int16, on 512-bit vectors (CPUs with
//                 AVX-512 but no VNNI: Skylake-SP and -X).
//   "avx2"        vpmaddwd on both operands widened to int16: 2 products summed into each
//                 int32 lane, exactly (vpmaddubsw's 16-bit pair sums would saturate).
//   "ref"         the plain triple loop: the specification the others are tested against.
// Deliberately not here: the choice of row_constant and z_w (the engine folds the
// zero-points and the bias into them) and threading.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::kernels {

// The x86 fast kernels' layers skip the groups of 4 inputs that are all zero in a tile's rows
// where at most this share (%) of the layer's groups are lit (a batch of digits' first layer),
// with the same outputs.
inline constexpr std::size_t kLitGroupsPercent = 50;

struct Int8GemmArgs {
  std::size_t m = 0;
  std::size_t n = 0;
  std::size_t k = 0;
  const std::uint8_t* a = nullptr;  // (m, k), row stride lda
  std::size_t lda = 0;
  const std::int8_t* packed_b = nullptr;  // pack_b() of B (n, k)
  std::int32_t* c = nullptr;              // (m, n), row stride ldc
  std::size_t ldc = 0;
};

struct Int8RequantizeArgs {
  std::size_t n = 0;                           // outputs
  const std::int32_t* dots = nullptr;          // (n) from gemm
  const std::int32_t* row_constant = nullptr;  // (n)
  std::int32_t correction = 0;                 // subtracted from every accumulator
  const std::int32_t* multiplier = nullptr;    // (n), each in [2^30, 2^31)
  const std::int32_t* shift = nullptr;         // (n), each in [0, 31]
  std::int32_t zero_point = 0;                 // z_y
  bool relu = false;
  std::int8_t* y = nullptr;   // (n) outputs; may be null: then only u
  std::uint8_t* u = nullptr;  // (n) outputs + 128
};

struct Int8LayerArgs {
  std::size_t m = 0;                // images
  std::size_t n = 0;                // outputs
  std::size_t k = 0;                // inputs
  const std::uint8_t* a = nullptr;  // (m, k), row stride lda: inputs + 128
  std::size_t lda = 0;
  const std::int8_t* packed_b = nullptr;       // pack_b() of the weights (n, k)
  const std::int32_t* row_constant = nullptr;  // (n)
  std::int32_t weight_zero_point = 0;          // z_w of the correction
  const std::int32_t* multiplier = nullptr;    // (n), each in [2^30, 2^31)
  const std::int32_t* shift = nullptr;         // (n), each in [0, 31]
  std::int32_t zero_point = 0;                 // z_y
  bool relu = false;
  std::uint8_t* u = nullptr;  // (m, n), row stride ldu: outputs + 128
  std::size_t ldu = 0;
};

struct Int8Kernel {
  std::string_view name;
  // B (n, k) row-major -> the kernel's layout.
  std::vector<std::int8_t> (*pack_b)(std::span<const std::int8_t> b, std::size_t n, std::size_t k);
  void (*gemm)(const Int8GemmArgs& args);
  void (*requantize)(const Int8RequantizeArgs& args);
  void (*layer)(const Int8LayerArgs& args);
  // Images (rows of A) per register tile of gemm and layer: a batch that is a multiple of it
  // never ends in a shorter tile, which reuses each weight vector it loads fewer times. 1 for
  // the reference.
  std::size_t tile_images;
  // The throughput probe behind the bench's int8 ceiling: `rounds` rounds of the kernel's
  // dot-product instruction on independent register accumulators, nothing else (no loads or
  // stores in the loop); returns the u8 x s8 products done. Null for the reference.
  double (*dot_probe)(std::size_t rounds);
};

// The specification: pack_b is the identity, gemm the plain triple loop in int32,
// requantize calls requantize() on each value, layer is those two image by image.
const Int8Kernel& int8_kernel_ref();

// The kernels this CPU can run, fastest first; "ref" is always last.
std::vector<std::string> int8_kernel_names();

// A kernel by name; "auto" is the fastest this CPU runs. Throws OptionError ("int8 kernel")
// for an unknown name or a kernel this CPU lacks, listing the available ones.
const Int8Kernel& int8_kernel(std::string_view name);

}  // namespace seatorch::kernels
