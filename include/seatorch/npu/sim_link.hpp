// SimLink: the NpuLink of the simulated NPU. Each clock cycle it drives the NPU's receive pin
// from a bit-level transmitter (UartLineTx) and samples its transmit pin with a bit-level
// receiver (UartLineRx), each direction through its wire's faults (UartLineFaults); the NPU
// itself is any NpuPins. Time is the clock cycles simulated, so a deadline is a cycle count
// and nothing depends on how fast the host runs.
// Below the protocol it also offers the raw wire (forged stop bits, breaks, free running) for
// tests and for the PTY bridge (pty_serve.hpp), which moves bytes between it and a terminal.
// Deliberately no frames and no wall clock: the protocol (NpuSession) finds frames, and the
// time a simulation takes is measured by whoever runs it.
#pragma once

#include "seatorch/npu/line_fault.hpp"
#include "seatorch/npu/link.hpp"
#include "seatorch/npu/npu_pins.hpp"
#include "seatorch/npu/uart.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace seatorch::npu {

struct SimLineOptions {
  unsigned clks_per_bit = kMinClksPerBit;  // UART bit time in clock cycles, >= kMinClksPerBit
  NpuLineFault to_npu;                     // faults on the host -> NPU wire; empty: a clean line
  NpuLineFault from_npu;                   // faults on the NPU -> host wire; empty: a clean line
};

class SimLink final : public NpuLink {
 public:
  // Holds the NPU in reset for a few cycles and releases it; those cycles count.
  SimLink(std::unique_ptr<NpuPins> pins, const SimLineOptions& options);
  ~SimLink() override;
  SimLink(const SimLink&) = delete;
  SimLink& operator=(const SimLink&) = delete;

  void send(std::span<const std::uint8_t> bytes) override { send_raw(bytes); }
  // Simulates until a byte has been received and everything queued is sent, or until
  // `deadline` (a cycle count) with everything sent.
  std::optional<UartByte> receive(LinkTime deadline) override;
  [[nodiscard]] LinkTime deadline_after(const LinkBudget& budget) const override;
  // Simulates until the NPU's transmit line has been idle for 20 bit times.
  void discard_until_quiet() override;
  [[nodiscard]] LinkCounters counters() const override;
  [[nodiscard]] std::string silence_advice() const override;

  // ---- the wire below the protocol ----
  // Queues bytes; the byte at index bad_stop_at (if any) gets a low stop bit.
  void send_raw(std::span<const std::uint8_t> bytes, std::optional<std::size_t> bad_stop_at = std::nullopt);
  void send_break(unsigned bit_times);
  // Exactly `cycles` clock cycles; the bytes received meanwhile wait for receive() or take_received().
  void run(std::uint64_t cycles);
  // A byte already received and not yet taken; simulates nothing.
  std::optional<UartByte> take_received();
  [[nodiscard]] bool sending() const { return !line_out_.idle(); }
  // The NPU's transmit line is low, or a byte on it is being received.
  [[nodiscard]] bool line_busy() const { return !level_ || line_in_.busy(); }
  [[nodiscard]] unsigned clks_per_bit() const { return clks_per_bit_; }
  [[nodiscard]] std::uint64_t cycles() const { return cycles_; }

 private:
  void tick();
  void keep(UartByte b);

  unsigned clks_per_bit_;
  UartLineTx line_out_;  // host -> NPU
  UartLineRx line_in_;   // NPU -> host
  UartLineFaults wire_to_npu_;
  UartLineFaults wire_from_npu_;
  std::unique_ptr<NpuPins> pins_;
  bool level_ = true;               // the NPU's transmit line as the host sees it
  std::vector<UartByte> received_;  // received, from received_head_ on not yet taken
  std::size_t received_head_ = 0;
  std::uint64_t cycles_ = 0;
  std::uint64_t bytes_sent_ = 0;
  std::uint64_t bytes_received_ = 0;
};

}  // namespace seatorch::npu
