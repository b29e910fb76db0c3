// The x86 int8 gemm kernels (see kernels/int8_kernels.hpp). gemm_* are defined in files
// compiled with their ISA flags; call one only when int8_kernel_names() lists it.
// Packing is plain C++ and lives in src/kernels/x86/int8_pack.cpp, so that no
// code shared with the rest of the program is ever compiled with ISA flags. Deliberately not
// here: the tiles' loops (int8_gemm_tiles.hpp) and the choice of kernel (int8_kernels.cpp).
#pragma once

#include "seatorch/kernels/int8_kernels.hpp"

namespace seatorch::kernels::x86 {

// Output rows per vector: for AVX2 4 rows of 2 partial sums in a 256-bit register (its
// products are int16 pairs, see int8_kernels_avx2.cpp), for AVX-512BW 8 such rows in a
// 512-bit one, for VNNI the int32 lanes of a 256-bit (AVX-VNNI) or 512-bit (AVX-512 VNNI) one.
inline constexpr std::size_t kAvx2Rows = 4;
inline constexpr std::size_t kAvx512BwRows = 8;
inline constexpr std::size_t kAvxVnniRows = 8;
inline constexpr std::size_t kAvx512Rows = 16;

// Images (rows of A) per register tile: Int8Kernel::tile_images, and each ISA's kMR.
inline constexpr std::size_t kAvx2TileImages = 4;
inline constexpr std::size_t kAvx512BwTileImages = 6;
inline constexpr std::size_t kAvxVnniTileImages = 6;
inline constexpr std::size_t kAvx512TileImages = 6;
inline constexpr std::size_t kAmxTileImages = 16;  // the rows of an AMX tile
inline constexpr std::size_t kAmxTileGroups = 16;  // groups of 4 activations in an AMX B tile: 64 activations

// B (n, k) -> row blocks of `rows` rows; within a block k in groups of 4 (zero padded), and
// per group rows x 4 bytes: (ceil(n/rows), ceil(k/4), rows, 4). Each 32-bit lane then holds
// 4 consecutive weights of one row, and one broadcast of 4 activation bytes feeds `rows`
// rows at once: no horizontal sums.
std::vector<std::int8_t> pack_b_blocked(std::span<const std::int8_t> b, std::size_t n, std::size_t k, std::size_t rows);
// The same layout with every weight widened to a little-endian int16 (twice the bytes), for
// the AVX2 kernel's vpmaddwd.
std::vector<std::int8_t> pack_b_blocked_int16(std::span<const std::int8_t> b, std::size_t n, std::size_t k,
                                              std::size_t rows);

// pack_b_blocked with 16 rows and k padded with zeros to a multiple of 64, so that each row
// block's groups come in whole AMX tiles of 16 groups: (ceil(n/16), ceil(k/64) * 16, 16, 4).
std::vector<std::int8_t> pack_b_tiles(std::span<const std::int8_t> b, std::size_t n, std::size_t k);

// The AMX kernel's thread-local scratch, reused across calls: A copied into whole tiles
// (act_bytes, 64-byte aligned), and per A tile its lit k-blocks and its rows' byte sums.
struct AmxScratch {
  std::uint8_t* acts = nullptr;        // (act_bytes)
  std::uint64_t* lit = nullptr;        // (tiles)
  std::uint32_t* byte_sums = nullptr;  // (tiles * kAmxTileImages)
};
AmxScratch amx_scratch(std::size_t act_bytes, std::size_t tiles);

// A thread-local scratch of at least `count` uint16, reused across calls (the AVX2 kernel's
// widened activations); here, outside the ISA files, so no container code gets ISA flags.
std::uint16_t* widened_activations(std::size_t count);

// The fused layer's thread-local scratch over a mostly-zero A (layer_lit in
// int8_gemm_tiles.hpp), for m rows of `words` lit-bit words and n outputs; reused across calls.
struct LitScratch {
  std::uint64_t* row_lit = nullptr;  // (m, words): each A row's lit groups, one bit each
  std::uint32_t* order = nullptr;    // (m): the A row each tile row computes
  std::uint8_t* u = nullptr;         // (m, n): the outputs, in tile-row order
};
LitScratch lit_scratch(std::size_t m, std::size_t words, std::size_t n);

void gemm_avx2(const Int8GemmArgs& args);                // B packed with kAvx2Rows, as int16
void gemm_avx512bw(const Int8GemmArgs& args);            // B packed with kAvx512BwRows, as int16
void gemm_avxvnni(const Int8GemmArgs& args);             // B packed with kAvxVnniRows
void gemm_avx512vnni(const Int8GemmArgs& args);          // B packed with kAvx512Rows
void gemm_amx(const Int8GemmArgs& args);                 // B packed by pack_b_tiles
void requantize_avx2(const Int8RequantizeArgs& args);    // also the avxvnni kernel's
void requantize_avx512(const Int8RequantizeArgs& args);  // AVX-512F/BW only: every AVX-512 kernel's
void layer_avx2(const Int8LayerArgs& args);              // B packed with kAvx2Rows, as int16
void layer_avx512bw(const Int8LayerArgs& args);          // B packed with kAvx512BwRows, as int16
void layer_avxvnni(const Int8LayerArgs& args);           // B packed with kAvxVnniRows
void layer_avx512vnni(const Int8LayerArgs& args);        // B packed with kAvx512Rows
void layer_amx(const Int8LayerArgs& args);               // B packed by pack_b_tiles
double dot_probe_avx2(std::size_t rounds);
double dot_probe_avx512bw(std::size_t rounds);
double dot_probe_avxvnni(std::size_t rounds);
double dot_probe_avx512vnni(std::size_t rounds);
double dot_probe_amx(std::size_t rounds);

}  // namespace seatorch::kernels::x86
