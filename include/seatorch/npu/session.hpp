// NpuSession: the host's end of the Mini NPU's frame protocol, over any NpuLink (link.hpp):
// request(), with resends on NAK, timeout and corrupted response, and load(), infer(),
// status(), echo() on top. It counts bytes, errors, resends and time in stats().
// The link is the simulated NPU (SimLink over the pins of its target's Verilated build or
// gate-level netlist, NpuPins: the first constructor) or a real serial port (SerialLink),
// and the protocol is the same code for both; it sees the NPU only through the bytes on the line - no backdoor into the memories
// (docs/NPU.md, "Simulation and tracing").
// Deliberately single-threaded and one NPU per session: Verilator models are fastest on one
// thread, and tests need independent NPUs.
#pragma once

#include "seatorch/npu/frame.hpp"
#include "seatorch/npu/image.hpp"
#include "seatorch/npu/line_fault.hpp"
#include "seatorch/npu/link.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace seatorch::npu {

class SimLink;

struct NpuSimOptions {
  NpuTarget target = default_npu_target();  // the build of the NPU to simulate
  bool netlist = false;                     // its FPGA build's gate-level netlist instead of its RTL
  unsigned clks_per_bit = 4;                // UART bit time in clock cycles, >= kMinClksPerBit
  std::filesystem::path trace_path;         // FST waveform of every clock edge; empty: none
  unsigned max_attempts = 8;                // sends of one request before giving up
  NpuLineFault to_npu;                      // faults on the host -> NPU wire; empty: a clean line
  NpuLineFault from_npu;                    // faults on the NPU -> host wire; empty: a clean line
};

struct NpuInference {
  std::size_t predicted = 0;
  std::vector<std::int8_t> logits;  // (outputs)
  std::uint32_t npu_cycles = 0;     // the NPU's count: first layer start -> last logit
  std::uint64_t wire_cycles = 0;    // first bit of the request -> end of the response (simulated links)
};

struct NpuStats {
  std::uint64_t cycles = 0;   // clock cycles simulated (0 on a real port)
  double link_seconds = 0.0;  // wall time spent in the link: simulating, or waiting on the port
  std::uint64_t bytes_to_npu = 0;
  std::uint64_t bytes_from_npu = 0;
  std::uint64_t requests = 0;  // frames sent, resends included
  std::uint64_t resends = 0;
  std::uint64_t naks = 0;           // NAKs received
  std::uint64_t timeouts = 0;       // responses that did not come in time
  std::uint64_t bad_responses = 0;  // responses with a CRC, framing or length error
  std::uint64_t load_cycles = 0;    // of the last load()
  double load_seconds = 0.0;        // wall time of the last load()
  std::uint64_t load_bytes = 0;     // bytes on the wire, both directions, of the last load()
  std::uint64_t inferences = 0;
  std::uint64_t npu_cycles = 0;       // sum of NpuInference::npu_cycles
  std::uint64_t wire_cycles = 0;      // sum of NpuInference::wire_cycles
  double inference_seconds = 0.0;     // wall time of all infer()s
  std::uint64_t inference_bytes = 0;  // bytes on the wire, both directions, of all infer()s

  // ---- faults on the line and what the protocol made of them ----
  LineFaultCounts faults_to_npu;    // injected into the requests' bytes
  LineFaultCounts faults_from_npu;  // injected into the responses' bytes
  std::uint64_t failed_sends = 0;   // sends not answered by a good response (= resends + give-ups)
  std::uint64_t faulted_sends = 0;  // sends during which a byte in either direction was hit
  std::uint64_t undetected = 0;     // sends answered although a byte was hit (a missed fault)
  std::uint64_t retry_cycles = 0;   // cycles of failed sends and the quiet waits after them
  struct CommandFaults {
    std::uint64_t requests_hit = 0;   // sends of this command with a byte of the request hit
    std::uint64_t responses_hit = 0;  // ... with a byte of the response hit
  };
  std::map<std::uint8_t, CommandFaults> faults_by_command;  // by command type

  [[nodiscard]] double cycles_per_second() const { return link_seconds > 0 ? cycles / link_seconds : 0.0; }
};

class NpuSession {
 public:
  // The simulated NPU: the Verilated RTL (make_rtl_pins) behind a SimLink.
  explicit NpuSession(const NpuSimOptions& options = {});
  // The protocol over any link: a SerialLink to a board or a PTY, a SimLink over other pins.
  NpuSession(std::unique_ptr<NpuLink> link, unsigned max_attempts);
  ~NpuSession();
  NpuSession(const NpuSession&) = delete;
  NpuSession& operator=(const NpuSession&) = delete;

  // One request and its final response: resends (same seq) on a NAK for a transmission
  // error (E_CRC, E_FRAMING, E_LENGTH, E_TIMEOUT), on a corrupted response and on a timeout.
  // Returns the ACK, or the NAK that resending cannot fix. Throws InputError after
  // max_attempts() sends without an answer, and at once when the link is gone.
  Response request(const Frame& frame);

  // The commands; each throws InputError naming the command and the NPU's error code
  // when the NPU refuses.
  NpuStatus status();
  std::vector<std::uint8_t> echo(std::span<const std::uint8_t> data);
  void load(const NpuImage& image);
  NpuInference infer(std::span<const std::uint8_t> pixels);  // (inputs) bytes

  // ---- the line itself, for tests: no protocol, no resends ----
  // Sends bytes; the byte at index bad_stop_at (if any) gets a low stop bit (simulated links only).
  void send_raw(std::span<const std::uint8_t> bytes, std::optional<std::size_t> bad_stop_at = std::nullopt);
  void send_break(unsigned bit_times);  // simulated links only
  // The next frame event decoded from the NPU's bytes, or nullopt after timeout_cycles of the
  // NPU's clock (on a real port: their time at the slowest clock, plus the port's allowance).
  std::optional<DecodedFrame> receive(std::uint64_t timeout_cycles);
  void run(std::uint64_t cycles);  // simulated links only
  std::uint8_t next_seq() { return seq_++; }

  [[nodiscard]] const NpuStats& stats() const { return stats_; }
  [[nodiscard]] unsigned max_attempts() const { return max_attempts_; }
  // The simulated line under this session; throws std::logic_error when the link is not a SimLink.
  [[nodiscard]] SimLink& sim();

 private:
  // Decodes the link's bytes until a frame event, or nullopt at `deadline`.
  std::optional<DecodedFrame> next_event(LinkTime deadline);
  void wait_line_quiet();
  void sync_line_stats();
  std::optional<Response> send_once(const Frame& frame, std::span<const std::uint8_t> bytes, std::string& problem);
  LinkBudget response_timeout(const Frame& frame) const;
  Response require_ack(const Frame& frame, const char* what);

  std::unique_ptr<NpuLink> link_;
  SimLink* sim_ = nullptr;  // link_, when it is simulated
  unsigned max_attempts_;
  FrameDecoder decoder_;
  NpuStats stats_;
  std::uint8_t seq_ = 0;
  std::uint64_t compute_budget_;     // cycles an inference of the loaded image may take
  std::size_t outputs_ = kActDepth;  // logits of the loaded image (the most until load())
};

}  // namespace seatorch::npu
