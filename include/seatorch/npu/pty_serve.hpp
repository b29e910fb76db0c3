// serve_npu_pty(): the simulated Mini NPU on a pseudo-terminal, for a host that talks to a
// serial port (SerialLink, `seatorch sim --npu --port`). Each byte read from the PTY is
// queued into the SimLink's bit-level transmitter that drives the NPU's receive pin; each
// byte its bit-level receiver decodes from the NPU's transmit pin is written to the PTY. It
// is the line of a board in software: the same RTL and the same UART models as
// `seatorch sim --npu`, with the host on the far side of a real terminal device.
// Simulated time runs only while the line is busy or the NPU may still answer: once the
// host's bytes are on the wire and the NPU has answered (or could no longer), it blocks in
// poll() on the PTY. So a quiet host costs no CPU and no simulated time, and its pauses
// between requests never look to the NPU like a stalled frame. (A pause inside a frame that
// lasts longer than the NPU's frame timeout does, as it would on a board.)
// Deliberately no protocol: it never looks into the bytes it carries.
#pragma once

#include "seatorch/npu/constants.hpp"
#include "seatorch/npu/target.hpp"

#include <cstdint>
#include <functional>
#include <string>

namespace seatorch::npu {

struct PtyServeOptions {
  NpuTarget target = default_npu_target();  // the build of the NPU to serve
  bool netlist = false;                     // its FPGA build's gate-level netlist instead of its RTL
  unsigned clks_per_bit = kMinClksPerBit;   // the simulated line's bit time in clock cycles
  double exit_after_idle = 0.0;             // return after this many seconds without a byte from the host; 0: never
};

enum class PtyServeEnd {
  kHostClosed,  // the host opened the PTY, sent bytes and closed it
  kIdle,        // exit_after_idle passed without a byte from the host
  kStopped,     // should_stop() said so
};

struct PtyServeSummary {
  std::string path;  // the PTY's slave end
  PtyServeEnd end = PtyServeEnd::kStopped;
  std::uint64_t bytes_from_host = 0;
  std::uint64_t bytes_to_host = 0;
  std::uint64_t cycles = 0;  // clock cycles simulated
  double seconds = 0.0;      // wall time served
};

struct PtyServeHooks {
  std::function<void(const std::string& path)> ready;  // once, with the slave's path, before serving
  std::function<bool()> should_stop;                   // asked between slices and at least every 100 ms
};

// Serves one host: returns when it closes the PTY, on exit_after_idle or on should_stop().
// Throws InputError when no pseudo-terminal can be made or the clocks per bit are out of range.
PtyServeSummary serve_npu_pty(const PtyServeOptions& options, const PtyServeHooks& hooks = {});

// "the host closed the port", ... for reports.
std::string describe(PtyServeEnd end);

}  // namespace seatorch::npu
