// The C++ mirror of rtl/npu_pkg.sv: every constant the Mini NPU shares with its host
// (docs/NPU.md). Names are the package's with a `k` prefix; tests/npu/constants_test.cpp
// parses the package and fails when a value differs or a constant is missing here.
// Deliberately only constants: the layouts they describe are coded in image.cpp and
// frame.cpp, next to the code that reads and writes them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace seatorch::npu {

// ---- build-time parameters: the defaults of npu_top (the `default` target, target.hpp) ----
inline constexpr std::size_t kLanes = 16;
inline constexpr std::size_t kWmemDepth = 16384;
inline constexpr std::size_t kRowDepth = 1024;
inline constexpr std::size_t kActDepth = 1024;
inline constexpr std::size_t kDmemDepth = 64;
inline constexpr std::size_t kFbufDepth = 2048;

// ---- the iCE40 UltraPlus configuration (rtl/npu_ice40.sv; the `icebreaker` target) ----
inline constexpr std::size_t kIce40Lanes = 8;
inline constexpr std::size_t kIce40WmemDepth = 16384;
inline constexpr std::size_t kIce40RowDepth = 256;
inline constexpr std::size_t kIce40ActDepth = 1024;
inline constexpr std::size_t kIce40DmemDepth = 64;
inline constexpr std::size_t kIce40FbufDepth = 2048;

// ---- limits that follow from them ----
inline constexpr std::size_t kMaxLayers = 15;
inline constexpr std::size_t kMinClksPerBit = 4;
inline constexpr std::uint32_t kRegionCrc = 0xF;
inline constexpr std::size_t kMaxChunkBytes = 1024;
inline constexpr std::size_t kChunkHeaderBytes = 8;
inline constexpr std::size_t kMaxPayload = 1032;
inline constexpr std::size_t kTimeoutBits = 320;

// ---- model image ----
inline constexpr std::uint32_t kImageMagic = 0x5550'4E53;
inline constexpr std::uint32_t kFormatVersion = 1;
inline constexpr std::size_t kHeaderWords = 4;
inline constexpr std::size_t kDescWords = 4;
inline constexpr std::uint32_t kRegionLsb = 20;
inline constexpr std::uint32_t kRegionDmem = 0x0;
inline constexpr std::uint32_t kRegionBias = 0x1;
inline constexpr std::uint32_t kRegionMult = 0x2;
inline constexpr std::uint32_t kRegionShift = 0x3;
inline constexpr std::uint32_t kRegionWmem = 0x4;

// ---- frames ----
inline constexpr std::uint8_t kSync0 = 0xA5;
inline constexpr std::uint8_t kSync1 = 0x5A;
inline constexpr std::uint8_t kCmdStatus = 0x01;
inline constexpr std::uint8_t kCmdEcho = 0x02;
inline constexpr std::uint8_t kCmdLoadBegin = 0x10;
inline constexpr std::uint8_t kCmdLoadChunk = 0x11;
inline constexpr std::uint8_t kCmdLoadEnd = 0x12;
inline constexpr std::uint8_t kCmdInfer = 0x20;
inline constexpr std::uint8_t kRspAck = 0x06;
inline constexpr std::uint8_t kRspNak = 0x15;
inline constexpr std::size_t kStatusBytes = 24;
inline constexpr std::size_t kResultBytes = 6;
inline constexpr std::uint32_t kCrcPoly = 0xEDB8'8320;

// ---- error codes ----
inline constexpr std::uint8_t kErrNone = 0;
inline constexpr std::uint8_t kErrCrc = 1;
inline constexpr std::uint8_t kErrFraming = 2;
inline constexpr std::uint8_t kErrLength = 3;
inline constexpr std::uint8_t kErrTimeout = 4;
inline constexpr std::uint8_t kErrCommand = 5;
inline constexpr std::uint8_t kErrState = 6;
inline constexpr std::uint8_t kErrSequence = 7;
inline constexpr std::uint8_t kErrAddress = 8;
inline constexpr std::uint8_t kErrNoImage = 9;
inline constexpr std::uint8_t kErrImageCrc = 10;
inline constexpr std::uint8_t kErrImageHeader = 11;

static_assert(kMaxLayers == (kDmemDepth - kHeaderWords) / kDescWords);
static_assert(kMaxPayload == kMaxChunkBytes + kChunkHeaderBytes);
static_assert(kFbufDepth >= kMaxPayload);
static_assert(kLanes >= 4 && (kLanes & (kLanes - 1)) == 0);
static_assert(kIce40Lanes >= 4 && (kIce40Lanes & (kIce40Lanes - 1)) == 0);
static_assert(kIce40FbufDepth >= kMaxPayload);
static_assert(kMaxLayers == (kIce40DmemDepth - kHeaderWords) / kDescWords);  // MaxLayers holds for both

}  // namespace seatorch::npu
