// The host's end of the UART, one clock cycle at a time: UartLineTx produces the level of
// the NPU's receive pin each cycle from a queue of bytes; UartLineRx samples the NPU's
// transmit pin each cycle and recovers bytes the way rtl/npu_uart_rx.sv does (start-bit
// check half a bit in, mid-bit samples, stop-bit check). 8N1, clks_per_bit cycles per bit.
// Deliberately cycle-driven rather than time-driven: SimLink calls tick() once per clock
// of the Verilated model, so the line and the RTL cannot drift apart.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

namespace seatorch::npu {

class UartLineTx {
 public:
  explicit UartLineTx(unsigned clks_per_bit);

  // Queues a byte. stop_bit = false (for tests) sends a low stop bit followed by one idle bit,
  // as a glitch at the stop bit's sample point looks to a receiver: a framing error, after
  // which the line is high again and the next start bit can be found.
  void push(std::uint8_t byte, bool stop_bit = true);
  // Queues `cycles` cycles of a low line (a break), then one idle bit (mark after break).
  void push_break(unsigned cycles);

  // The line level for this cycle; advances by one cycle. The idle line is decided here,
  // inline: SimLink ticks every simulated cycle, and most of them are idle.
  bool tick() { return queue_.empty() || tick_queued(); }
  [[nodiscard]] bool idle() const { return queue_.empty(); }

 private:
  bool tick_queued();

  struct Item {
    std::uint16_t bits;   // line levels, LSB first: start, 8 data, stop (, idle)
    unsigned count;       // how many of them
    unsigned bit_cycles;  // cycles per level
  };
  unsigned clks_per_bit_;
  std::deque<Item> queue_;
  unsigned bit_ = 0;           // bit of the front item on the line
  unsigned cycle_in_bit_ = 0;  // cycles of it already sent
};

struct UartByte {
  std::uint8_t value = 0;
  bool framing_error = false;
};

class UartLineRx {
 public:
  explicit UartLineRx(unsigned clks_per_bit) : clks_per_bit_(clks_per_bit) {}

  // Samples the line for one cycle; returns a byte in the cycle its stop bit is sampled.
  // An idle, high line is decided inline (see UartLineTx::tick).
  std::optional<UartByte> tick(bool level) {
    if (state_ == State::kIdle && level) return std::nullopt;
    return tick_active(level);
  }
  [[nodiscard]] bool busy() const { return state_ != State::kIdle; }

 private:
  std::optional<UartByte> tick_active(bool level);

  enum class State { kIdle, kStart, kData, kStop, kWaitHigh };
  unsigned clks_per_bit_;
  State state_ = State::kIdle;
  unsigned count_ = 0;
  unsigned bit_ = 0;
  std::uint8_t shift_ = 0;
};

}  // namespace seatorch::npu
