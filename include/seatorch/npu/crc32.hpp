// CRC-32 as the Mini NPU computes it (rtl/npu_crc32.sv): the Ethernet/zip CRC, reflected
// polynomial 0xEDB88320, initial value and final XOR 0xFFFFFFFF; "123456789" -> 0xCBF43926.
// Used for every frame and for the image CRC. Deliberately bytewise with a 256-entry table:
// the host side never checksums more than a model image.
#pragma once

#include <cstdint>
#include <span>

namespace seatorch::npu {

// Running CRC: feed bytes in any number of pieces, read value() at any time.
class Crc32 {
 public:
  void update(std::span<const std::uint8_t> bytes);
  void update(std::uint8_t byte);
  [[nodiscard]] std::uint32_t value() const { return ~state_; }

 private:
  std::uint32_t state_ = 0xFFFF'FFFF;
};

std::uint32_t crc32(std::span<const std::uint8_t> bytes);

}  // namespace seatorch::npu
