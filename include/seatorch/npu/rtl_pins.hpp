// The default NpuPins: rtl/npu_top.sv as compiled by Verilator into seatorch_npu_rtl, with an
// optional FST waveform of every clock edge. The Verilated headers are included by
// src/npu/rtl_pins.cpp alone, so nothing else in the tree depends on which build it runs.
// Deliberately no choice of RTL configuration here: another build is another factory.
#pragma once

#include "seatorch/npu/npu_pins.hpp"

#include <filesystem>
#include <memory>

namespace seatorch::npu {

// A fresh npu_top in reset, uart_rx_i idle (high). `trace`: an FST file of every clock edge,
// empty for none; throws InputError when it cannot be written.
std::unique_ptr<NpuPins> make_rtl_pins(const std::filesystem::path& trace = {});

}  // namespace seatorch::npu
