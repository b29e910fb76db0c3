// Faults on one direction of the simulated UART line, applied to the wire itself: a byte can
// be lost whole (the line stays idle for its ten bit times) or have any of its ten bits on
// the wire inverted - the start bit, a data bit or the stop bit - for a full bit time. So the
// receivers meet what noise does to a real line: wrong data bits (a CRC error), a low stop
// bit (a framing error), a missed start bit (a receiver that resynchronizes on a data bit),
// a missing byte (a frame that never ends: a timeout).
// UartLineFaults follows the sender's bytes on the clean line (a start bit from an idle line
// opens a byte of ten bit times) and asks an NpuLineFault what happens to each.
// random_line_faults() is that decision drawn at a bit-error rate and a drop rate.
// Deliberately no noise on an idle line: every fault lands in a byte of some frame, so every
// fault injected is one the protocol must detect.
#pragma once

#include "seatorch/core/rng.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace seatorch::npu {

inline constexpr unsigned kWireBitsPerByte = 10;  // start, 8 data LSB first, stop

// What happens to one byte on the wire.
struct WireFault {
  bool drop = false;        // the byte never appears on the line
  std::uint16_t flips = 0;  // bit i inverts wire bit i (0: start, 1-8: data LSB first, 9: stop)
};

// Decides the fate of byte number `index` (counted from 0 per direction) on the line.
using NpuLineFault = std::function<WireFault(std::uint64_t index)>;

struct LineFaultCounts {
  std::uint64_t bytes = 0;      // bytes that started on the line
  std::uint64_t bytes_hit = 0;  // of them dropped or with at least one inverted bit
  std::uint64_t drops = 0;
  std::uint64_t bit_flips = 0;

  [[nodiscard]] std::uint64_t faults() const { return drops + bit_flips; }
  LineFaultCounts& operator+=(const LineFaultCounts& other);
};

class UartLineFaults {
 public:
  UartLineFaults(unsigned clks_per_bit, NpuLineFault fault);

  // The level the receiver sees this cycle when the sender drives `level`. An idle, high
  // line is decided inline: SimLink ticks every simulated cycle, and most are idle.
  bool tick(bool level) { return (!in_byte_ && !wait_high_ && level) || tick_line(level); }
  [[nodiscard]] const LineFaultCounts& counts() const { return counts_; }

 private:
  bool tick_line(bool level);

  unsigned clks_per_bit_;
  NpuLineFault fault_;
  LineFaultCounts counts_;
  bool in_byte_ = false;
  bool wait_high_ = false;     // after a byte that ended low (a break): wait for the idle level
  unsigned bit_ = 0;           // wire bit of the current byte on the line (0: start)
  unsigned cycle_in_bit_ = 0;  // cycles of it already on the line
  WireFault current_;
};

struct LineFaultRates {
  double bit_error_rate = 0.0;  // probability that a bit on the wire arrives inverted
  double drop_rate = 0.0;       // probability that a byte is lost

  [[nodiscard]] bool any() const { return bit_error_rate > 0.0 || drop_rate > 0.0; }
};

// Throws InputError unless both rates are in [0, 1).
void check_line_fault_rates(const LineFaultRates& rates);

// Independent faults at `rates`, drawn from an Rng seeded with `seed`: the same seed gives the
// same faults on the same byte stream.
NpuLineFault random_line_faults(const LineFaultRates& rates, std::uint64_t seed);

// The probability that `bytes` bytes all cross the line unharmed.
double intact_probability(const LineFaultRates& rates, std::size_t bytes);

}  // namespace seatorch::npu
