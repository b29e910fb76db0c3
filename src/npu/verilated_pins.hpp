// VerilatedPins<Model>: a Verilated build of the Mini NPU behind NpuPins, written once for
// every build (they share the pins' names). Included only by the one .cpp per build that
// includes that build's model header (rtl_pins.cpp, ice40_pins.cpp): the Verilated headers
// stay out of the rest of the tree.
// Deliberately nothing about UARTs or frames: pins, clock edges and the trace.
#pragma once

#include "seatorch/core/error.hpp"
#include "seatorch/npu/npu_pins.hpp"

#include <verilated.h>
#include <verilated_fst_c.h>

#include <filesystem>
#include <memory>

namespace seatorch::npu {

template <typename Model>
class VerilatedPins final : public NpuPins {
 public:
  explicit VerilatedPins(const std::filesystem::path& trace_path) {
    if (!trace_path.empty()) context_.traceEverOn(true);
    top_ = std::make_unique<Model>(&context_, "TOP");
    if (!trace_path.empty()) {
      trace_ = std::make_unique<VerilatedFstC>();
      top_->trace(trace_.get(), 99);
      trace_->open(trace_path.c_str());
      if (!trace_->isOpen()) {
        throw core::input_error("cannot write the trace {}; check that its directory exists", trace_path.string());
      }
    }
    top_->uart_rx_i = 1;
    top_->rst_ni = 0;
  }

  VerilatedPins(const VerilatedPins&) = delete;
  VerilatedPins& operator=(const VerilatedPins&) = delete;

  ~VerilatedPins() override {
    if (trace_) trace_->close();
    top_->final();
  }

  void set_reset(bool asserted) override { top_->rst_ni = asserted ? 0 : 1; }
  void set_clks_per_bit(std::uint16_t cpb) override { top_->clks_per_bit_i = cpb; }

  // Inputs change on the falling edge, outputs are sampled after the rising edge.
  // The model in a local: eval() is opaque to the compiler, which would reload top_ after each call.
  bool cycle(bool rx) override {
    Model& top = *top_;
    top.uart_rx_i = rx ? 1 : 0;
    top.clk_i = 0;
    top.eval();
    if (trace_) trace_->dump(2 * time_);
    top.clk_i = 1;
    top.eval();
    if (trace_) trace_->dump(2 * time_ + 1);
    ++time_;
    return top.uart_tx_o != 0;
  }

 private:
  VerilatedContext context_;
  std::unique_ptr<Model> top_;
  std::unique_ptr<VerilatedFstC> trace_;
  std::uint64_t time_ = 0;  // clock cycles, for the trace's timestamps
};

}  // namespace seatorch::npu
