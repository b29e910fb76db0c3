// NpuLink: the byte transport under the frame protocol (NpuSession). Two implementations:
// SimLink (sim_link.hpp), the Verilated NPU's pins behind bit-level UART models with time in
// clock cycles, and SerialLink (serial_link.hpp), a real serial port with time in wall-clock
// nanoseconds. The protocol states how long it will wait in physical terms (bits on the wire,
// the NPU's clock cycles) and each link turns that into a deadline of its own clock, so one
// piece of protocol code runs over both.
// Deliberately bytes, not frames: finding frames in the bytes, CRCs and resends are the
// protocol's, so both links get them from the same code.
#pragma once

#include "seatorch/npu/constants.hpp"
#include "seatorch/npu/line_fault.hpp"
#include "seatorch/npu/uart.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace seatorch::npu {

// A point in a link's own time (clock cycles on a simulated line, steady-clock nanoseconds on a
// serial port). Only the link that made it can compare it with its clock.
using LinkTime = std::uint64_t;

// How long to wait for something, in what takes time on any line.
struct LinkBudget {
  std::uint64_t wire_bits = 0;   // bit times on the wire
  std::uint64_t npu_cycles = 0;  // the NPU's clock cycles of processing
};

// What crossed the link so far.
struct LinkCounters {
  std::uint64_t bytes_sent = 0;      // to the NPU
  std::uint64_t bytes_received = 0;  // from the NPU
  std::uint64_t cycles = 0;          // clock cycles simulated; 0 on a real port (the host cannot see its clock)
  LineFaultCounts faults_sent;       // injected into the bytes to the NPU (a simulated line only)
  LineFaultCounts faults_received;   // injected into the bytes from the NPU
};

class NpuLink {
 public:
  virtual ~NpuLink() = default;

  // Hands bytes to the line towards the NPU.
  virtual void send(std::span<const std::uint8_t> bytes) = 0;
  // The next byte from the NPU, or nullopt once `deadline` has passed and every byte handed to
  // send() is on its way. Throws InputError when the line is gone.
  virtual std::optional<UartByte> receive(LinkTime deadline) = 0;
  // Now plus `budget`, in this link's time.
  [[nodiscard]] virtual LinkTime deadline_after(const LinkBudget& budget) const = 0;
  // Drops what arrives until the NPU has been silent long enough that it listens again, and
  // any byte received but not yet taken: the state before a resend.
  virtual void discard_until_quiet() = 0;
  [[nodiscard]] virtual LinkCounters counters() const = 0;
  // What to check when the NPU does not answer, for the end of an error message.
  [[nodiscard]] virtual std::string silence_advice() const = 0;
};

}  // namespace seatorch::npu
