// make_rtl_pins(): the Verilated npu_top (the default target) behind NpuPins. With
// ice40_pins.cpp, the only files that include a Verilated model's header.
#include "seatorch/npu/rtl_pins.hpp"

#include <Vnpu_top.h>

#include "verilated_pins.hpp"

namespace seatorch::npu {

std::unique_ptr<NpuPins> make_rtl_pins(const std::filesystem::path& trace) {
  return std::make_unique<VerilatedPins<Vnpu_top>>(trace);
}

}  // namespace seatorch::npu
