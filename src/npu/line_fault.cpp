// Faults on the wire of one UART direction, and the random fault process of
// `seatorch sim --inject-bit-errors/--inject-drops`.
#include "seatorch/npu/line_fault.hpp"

#include "seatorch/core/error.hpp"

#include <bit>
#include <cmath>

namespace seatorch::npu {

LineFaultCounts& LineFaultCounts::operator+=(const LineFaultCounts& other) {
  bytes += other.bytes;
  bytes_hit += other.bytes_hit;
  drops += other.drops;
  bit_flips += other.bit_flips;
  return *this;
}

UartLineFaults::UartLineFaults(unsigned clks_per_bit, NpuLineFault fault)
    : clks_per_bit_(clks_per_bit), fault_(std::move(fault)) {}

bool UartLineFaults::tick_line(bool level) {
  if (!in_byte_) {
    if (wait_high_) {
      wait_high_ = !level;
      return level;
    }
    if (level) return true;
    // A start bit on an idle line: the sender begins a byte.
    current_ = fault_ ? fault_(counts_.bytes) : WireFault{};
    current_.flips &= static_cast<std::uint16_t>((1U << kWireBitsPerByte) - 1);
    ++counts_.bytes;
    if (current_.drop) {
      ++counts_.drops;
      ++counts_.bytes_hit;
    } else if (current_.flips != 0) {
      counts_.bit_flips += static_cast<std::uint64_t>(std::popcount(current_.flips));
      ++counts_.bytes_hit;
    }
    in_byte_ = true;
    bit_ = 0;
    cycle_in_bit_ = 0;
  }
  const bool flipped = ((current_.flips >> bit_) & 1U) != 0;
  const bool seen = current_.drop ? true : (level != flipped);
  // Counters rather than a division by clks_per_bit: this runs every simulated cycle.
  if (++cycle_in_bit_ == clks_per_bit_) {
    cycle_in_bit_ = 0;
    if (++bit_ == kWireBitsPerByte) {
      in_byte_ = false;
      // A clean stop bit is high; a sender that holds the line low (a break, a forged stop
      // bit) has not begun a new byte until the line has been idle again.
      wait_high_ = !level;
    }
  }
  return seen;
}

void check_line_fault_rates(const LineFaultRates& rates) {
  if (!(rates.bit_error_rate >= 0.0 && rates.bit_error_rate < 1.0)) {
    throw core::input_error("the bit-error rate must be in [0, 1), got {}", rates.bit_error_rate);
  }
  if (!(rates.drop_rate >= 0.0 && rates.drop_rate < 1.0)) {
    throw core::input_error("the byte-drop rate must be in [0, 1), got {}", rates.drop_rate);
  }
}

NpuLineFault random_line_faults(const LineFaultRates& rates, std::uint64_t seed) {
  check_line_fault_rates(rates);
  auto rng = std::make_shared<core::Rng>(seed);
  return [rng, rates](std::uint64_t) {
    WireFault fault;
    // Both draws happen for every byte, so a byte's fate does not depend on earlier fates.
    fault.drop = rng->uniform() < rates.drop_rate;
    for (unsigned bit = 0; bit < kWireBitsPerByte; ++bit) {
      if (rng->uniform() < rates.bit_error_rate) fault.flips |= static_cast<std::uint16_t>(1U << bit);
    }
    if (fault.drop) fault.flips = 0;
    return fault;
  };
}

double intact_probability(const LineFaultRates& rates, std::size_t bytes) {
  const double n = static_cast<double>(bytes);
  return std::pow(1.0 - rates.drop_rate, n) * std::pow(1.0 - rates.bit_error_rate, n * kWireBitsPerByte);
}

}  // namespace seatorch::npu
