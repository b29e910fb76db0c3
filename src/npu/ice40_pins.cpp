// make_ice40_pins(): the Verilated npu_ice40 (rtl/npu_ice40.sv, the icebreaker target: the
// iCE40 configuration with the generic SPRAM model, rtl/npu_spram.sv) behind NpuPins. With
// rtl_pins.cpp, the only files that include a Verilated model's header.
#include "seatorch/npu/rtl_pins.hpp"

#include <Vnpu_ice40.h>

#include "verilated_pins.hpp"

namespace seatorch::npu {

std::unique_ptr<NpuPins> make_ice40_pins(const std::filesystem::path& trace) {
  return std::make_unique<VerilatedPins<Vnpu_ice40>>(trace);
}

}  // namespace seatorch::npu
