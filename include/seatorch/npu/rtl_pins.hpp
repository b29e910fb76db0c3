// The NpuPins of the Verilated builds in seatorch_npu_rtl, one factory per RTL top, each with
// an optional FST waveform of every clock edge. The Verilated headers are included by their
// .cpp files alone (src/npu/rtl_pins.cpp, src/npu/ice40_pins.cpp), so nothing else in the tree
// depends on which build it runs.
// Deliberately no choice of build here: a target names its RTL top (target.hpp), and
// NpuSession picks the factory.
#pragma once

#include "seatorch/npu/npu_pins.hpp"
#include "seatorch/npu/target.hpp"

#include <filesystem>
#include <memory>

namespace seatorch::npu {

// A fresh NPU in reset, uart_rx_i idle (high). `trace`: an FST file of every clock edge, empty
// for none; throws InputError when it cannot be written.
std::unique_ptr<NpuPins> make_rtl_pins(const std::filesystem::path& trace = {});    // npu_top, the defaults
std::unique_ptr<NpuPins> make_ice40_pins(const std::filesystem::path& trace = {});  // npu_ice40 (rtl/npu_ice40.sv)

// The post-synthesis netlist of npu_ice40 with Yosys's iCE40 cell models (src/npu/netlist_pins.cpp):
// the circuit the bitstream holds, minus the PLL and pins. Only in builds configured with
// SEATORCH_NPU_NETLIST (have_netlist_pins()); elsewhere it throws InputError saying how to get it.
bool have_netlist_pins();
std::unique_ptr<NpuPins> make_netlist_pins(const std::filesystem::path& trace = {});

// The build `target` names (its rtl_top), or with `netlist` the gate-level netlist of its FPGA
// build; throws InputError for a target without one.
std::unique_ptr<NpuPins> make_target_pins(const NpuTarget& target, bool netlist,
                                          const std::filesystem::path& trace = {});

}  // namespace seatorch::npu
