// The Mini NPU as its pins: the one thing the simulated line needs from a Verilated build of
// the NPU. Each build is a factory in rtl_pins.hpp (npu_top for the default target, npu_ice40
// for icebreaker); NpuSession takes the one its target names, and the line and the protocol
// above do not change.
// Deliberately nothing but the five pins: no backdoor into memories or state, so every
// implementation is driven and observed exactly as a board would be.
#pragma once

#include <cstdint>

namespace seatorch::npu {

// NpuPins: one Verilated build of the Mini NPU, seen only through its pins (clk_i, rst_ni,
// clks_per_bit_i, uart_rx_i, uart_tx_o).
class NpuPins {
 public:
  virtual ~NpuPins() = default;
  virtual void set_reset(bool asserted) = 0;  // rst_ni = !asserted
  virtual void set_clks_per_bit(std::uint16_t cpb) = 0;
  // One clock cycle: uart_rx_i = rx, falling then rising edge (each edge dumped to the trace if
  // open); returns uart_tx_o after the rising edge.
  virtual bool cycle(bool rx) = 0;
};

}  // namespace seatorch::npu
