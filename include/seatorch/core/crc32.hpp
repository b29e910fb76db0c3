// CRC-32, the one checksum seatorch writes and checks: the safetensors data checksum
// (io/safetensors.hpp), the resume file's data fingerprint, and the Mini NPU's frames and
// image CRC. It is the Ethernet/zip CRC (CRC-32/ISO-HDLC): reflected polynomial 0xEDB88320,
// initial value and final XOR 0xFFFFFFFF; "123456789" -> 0xCBF43926. rtl/npu_crc32.sv folds
// exactly this CRC one byte per cycle (npu_pkg::CrcPoly = kCrc32Polynomial, checked in
// src/npu/frame.cpp), so the host and the NPU agree on every frame.
// The arithmetic is zlib's crc32(), the same CRC computed several bytes at a time: about
// ten times faster than a bytewise table on the resume file's fingerprint of a whole
// training set. tests/core/crc32_test.cpp checks it against a bitwise loop over the
// polynomial below.
#pragma once

#include <cstdint>
#include <span>

namespace seatorch::core {

// The reflected generator polynomial (bit 0 is x^31).
inline constexpr std::uint32_t kCrc32Polynomial = 0xEDB8'8320;

// The CRC-32 of `bytes`, continuing from the CRC `crc` of the bytes before them (0 to
// start): crc32(b, crc32(a)) == crc32(a then b).
std::uint32_t crc32(std::span<const std::uint8_t> bytes, std::uint32_t crc = 0);

// A running CRC-32: feed bytes in any number of pieces, read value() at any time.
class Crc32 {
 public:
  void update(std::span<const std::uint8_t> bytes) { value_ = crc32(bytes, value_); }
  void update(std::uint8_t byte) { update(std::span(&byte, 1)); }
  [[nodiscard]] std::uint32_t value() const { return value_; }

 private:
  std::uint32_t value_ = 0;  // the CRC of the bytes so far (0 for none)
};

}  // namespace seatorch::core
