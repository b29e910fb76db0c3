// make_rtl_pins(): the Verilated npu_top behind NpuPins. The only file that includes the
// Verilated headers; it knows the pins' names and the trace, nothing about UARTs or frames.
#include "seatorch/npu/rtl_pins.hpp"

#include "seatorch/error.hpp"

#include <Vnpu_top.h>
#include <verilated.h>
#include <verilated_fst_c.h>

namespace seatorch::npu {
namespace {

class RtlPins final : public NpuPins {
 public:
  explicit RtlPins(const std::filesystem::path& trace_path) {
    if (!trace_path.empty()) context_.traceEverOn(true);
    top_ = std::make_unique<Vnpu_top>(&context_, "TOP");
    if (!trace_path.empty()) {
      trace_ = std::make_unique<VerilatedFstC>();
      top_->trace(trace_.get(), 99);
      trace_->open(trace_path.c_str());
      if (!trace_->isOpen()) {
        throw input_error("cannot write the trace {}; check that its directory exists", trace_path.string());
      }
    }
    top_->uart_rx_i = 1;
    top_->rst_ni = 0;
  }

  RtlPins(const RtlPins&) = delete;
  RtlPins& operator=(const RtlPins&) = delete;

  ~RtlPins() override {
    if (trace_) trace_->close();
    top_->final();
  }

  void set_reset(bool asserted) override { top_->rst_ni = asserted ? 0 : 1; }
  void set_clks_per_bit(std::uint16_t cpb) override { top_->clks_per_bit_i = cpb; }

  // Inputs change on the falling edge, outputs are sampled after the rising edge.
  bool cycle(bool rx) override {
    top_->uart_rx_i = rx ? 1 : 0;
    top_->clk_i = 0;
    top_->eval();
    if (trace_) trace_->dump(2 * time_);
    top_->clk_i = 1;
    top_->eval();
    if (trace_) trace_->dump(2 * time_ + 1);
    ++time_;
    return top_->uart_tx_o != 0;
  }

 private:
  VerilatedContext context_;
  std::unique_ptr<Vnpu_top> top_;
  std::unique_ptr<VerilatedFstC> trace_;
  std::uint64_t time_ = 0;  // clock cycles, for the trace's timestamps
};

}  // namespace

std::unique_ptr<NpuPins> make_rtl_pins(const std::filesystem::path& trace) { return std::make_unique<RtlPins>(trace); }

}  // namespace seatorch::npu
