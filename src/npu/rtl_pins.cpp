// make_rtl_pins(): the Verilated npu_top (the default target) behind NpuPins, and
// make_target_pins(), which picks a target's build. With ice40_pins.cpp and netlist_pins.cpp,
// the only files that include a Verilated model's header.
#include "seatorch/npu/rtl_pins.hpp"

#include <Vnpu_top.h>

#include "verilated_pins.hpp"

namespace seatorch::npu {

std::unique_ptr<NpuPins> make_rtl_pins(const std::filesystem::path& trace) {
  return std::make_unique<VerilatedPins<Vnpu_top>>(trace);
}

// The Verilated build that the target names, or the gate-level netlist of its FPGA build.
std::unique_ptr<NpuPins> make_target_pins(const NpuTarget& target, bool netlist, const std::filesystem::path& trace) {
  if (netlist) {
    if (target.rtl_top != "npu_ice40") {
      throw core::input_error("the {} target has no FPGA netlist to simulate; only icebreaker (npu_ice40) has one",
                              target.name);
    }
    return make_netlist_pins(trace);
  }
  if (target.rtl_top == "npu_top") return make_rtl_pins(trace);
  if (target.rtl_top == "npu_ice40") return make_ice40_pins(trace);
  throw core::input_error("the {} target names the RTL top '{}', which this seatorch has no Verilated model of",
                          target.name, target.rtl_top);
}

}  // namespace seatorch::npu
