// serve_npu_pty(): one loop that moves bytes between a PTY and a SimLink, simulating in
// slices while there is something to simulate and sleeping in poll() when there is not.
#include "seatorch/npu/pty_serve.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/npu/link.hpp"
#include "seatorch/npu/pty.hpp"
#include "seatorch/npu/rtl_pins.hpp"
#include "seatorch/npu/sim_link.hpp"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

namespace seatorch::npu {
namespace {

using Clock = std::chrono::steady_clock;

// Cycles simulated between two looks at the PTY: about 100 byte times at 4 clocks per bit,
// a third of a millisecond of wall time, so the host's bytes wait little and the poll() per
// slice costs nothing next to the simulation.
constexpr std::uint64_t kSliceCycles = 4096;
constexpr std::uint64_t kAnswerMarginCycles = 2000;
constexpr int kMaxPollMs = 100;  // should_stop() is asked at least this often
// Once a host has closed the PTY without sending a byte, the master reports a hangup at once
// until the next one opens it: this paces that wait.
constexpr int kUnopenedPollMs = 20;
constexpr std::size_t kReadBytes = 4096;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Writes what it can of `out` without blocking; false when the host is gone.
bool flush(int fd, std::vector<std::uint8_t>& out, PtyServeSummary& s) {
  while (!out.empty()) {
    const ssize_t n = ::write(fd, out.data(), out.size());
    if (n > 0) {
      s.bytes_to_host += static_cast<std::uint64_t>(n);
      out.erase(out.begin(), out.begin() + n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return true;  // the host reads slowly: the rest goes later
    return false;
  }
  return true;
}

}  // namespace

std::string describe(PtyServeEnd end) {
  switch (end) {
    case PtyServeEnd::kHostClosed:
      return "the host closed the port";
    case PtyServeEnd::kIdle:
      return "no byte from the host for the idle time";
    case PtyServeEnd::kStopped:
      return "stopped";
  }
  return "stopped";
}

PtyServeSummary serve_npu_pty(const PtyServeOptions& options, const PtyServeHooks& hooks) {
  if (!(options.exit_after_idle >= 0.0)) {  // NaN fails too
    throw core::input_error("the idle time must not be negative (got {} s)", options.exit_after_idle);
  }
  SimLink link(make_target_pins(options.target, options.netlist), SimLineOptions{options.clks_per_bit, {}, {}});
  PtyMaster pty;
  PtyServeSummary s;
  s.path = pty.slave_path();
  if (hooks.ready) hooks.ready(s.path);

  // After the host's last byte is on the wire, the NPU may compute this long before it
  // answers: the longest inference, or its frame timeout when the bytes ended mid-frame.
  const std::uint64_t answer_cycles =
      npu_max_answer_cycles(options.target) + kTimeoutBits * options.clks_per_bit + kAnswerMarginCycles;
  const auto start = Clock::now();
  auto last_host_byte = start;
  bool connected = false;   // a host has sent a byte: a hangup from now on means it has gone
  bool awaiting = false;    // the host has sent bytes since the NPU last sent one
  std::uint64_t quiet = 0;  // cycles simulated since the line was last busy, counted per slice
  std::vector<std::uint8_t> out;
  std::vector<std::uint8_t> in(kReadBytes);
  for (;;) {
    if (hooks.should_stop && hooks.should_stop()) {
      s.end = PtyServeEnd::kStopped;
      break;
    }
    // Simulate while bytes are on the wire, and after that for as long as an answer may come
    // (or, after the NPU's last byte, one more slice to see that no more follow).
    const bool simulate = link.sending() || link.line_busy() || quiet < (awaiting ? answer_cycles : kSliceCycles);
    int wait_ms = 0;
    if (!simulate) {
      wait_ms = kMaxPollMs;
      if (options.exit_after_idle > 0.0) {
        const double left = options.exit_after_idle - seconds_since(last_host_byte);
        if (left <= 0.0) {
          s.end = PtyServeEnd::kIdle;
          break;
        }
        // Compared as a double first: an idle time of 1e300 s in milliseconds is no int.
        if (left * 1000.0 < wait_ms) wait_ms = static_cast<int>(left * 1000.0) + 1;
      }
    }
    pollfd p{pty.fd(), static_cast<short>(POLLIN | (out.empty() ? 0 : POLLOUT)), 0};
    const int ready = ::poll(&p, 1, wait_ms);
    if (ready < 0 && errno != EINTR) {
      throw core::input_error("waiting on the PTY {} failed: {}", s.path, std::strerror(errno));
    }
    if (ready > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      const ssize_t n = ::read(pty.fd(), in.data(), in.size());
      if (n > 0) {
        link.send(std::span(in).first(static_cast<std::size_t>(n)));
        s.bytes_from_host += static_cast<std::uint64_t>(n);
        connected = true;
        awaiting = true;
        quiet = 0;
        last_host_byte = Clock::now();
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        // A hangup (EIO): the host closed its end - or, before any byte came, no host has
        // opened it yet, or one opened and closed it without a word; wait for the next.
        if (connected) {
          s.end = PtyServeEnd::kHostClosed;
          break;
        }
        ::poll(nullptr, 0, kUnopenedPollMs);
      }
    }
    if (!out.empty() && !flush(pty.fd(), out, s)) {
      s.end = PtyServeEnd::kHostClosed;
      break;
    }
    if (!simulate) continue;
    link.run(kSliceCycles);
    bool answered = false;
    while (const std::optional<UartByte> b = link.take_received()) {
      out.push_back(b->value);
      answered = true;
    }
    if (answered) awaiting = false;
    quiet = (answered || link.sending() || link.line_busy()) ? 0 : quiet + kSliceCycles;
    if (!out.empty() && !flush(pty.fd(), out, s)) {
      s.end = PtyServeEnd::kHostClosed;
      break;
    }
  }
  s.cycles = link.cycles();
  s.seconds = seconds_since(start);
  return s;
}

}  // namespace seatorch::npu
