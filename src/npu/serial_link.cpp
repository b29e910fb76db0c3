// SerialLink over termios and poll(). Every wait is a poll() with the time left to its
// deadline, so a silent, babbling or vanished port ends in bounded time with one message.
#include "seatorch/npu/serial_link.hpp"

#include "seatorch/core/error.hpp"

#include <fcntl.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>

namespace seatorch::npu {
namespace {

using Clock = std::chrono::steady_clock;

// Budgets in NPU cycles are converted at this clock: slower than any board the NPU is built
// for (the iCE40 build runs at 12 MHz), so a real NPU always answers well within them.
constexpr double kSlowestNpuClockHz = 1e6;
// After a failed send the NPU may still be finishing a response we could not read: silence
// for this long (or 20 byte times at a slow baud, whichever is longer) means it has stopped.
// On a board the bytes of a response follow each other at once; across a PTY to a simulator
// they come a slice of simulated cycles at a time, well under a millisecond apart.
constexpr double kQuietSeconds = 0.05;
constexpr double kQuietBits = 200;
// The longest answer the NPU can send: an ECHO of a full payload, in bits on the wire.
constexpr double kLongestResponseBits = 10.0 * (kMaxPayload + 1 + 10);
constexpr std::size_t kReadBytes = 4096;

LinkTime now_ns() {
  return static_cast<LinkTime>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count());
}

LinkTime after(double seconds) { return now_ns() + static_cast<LinkTime>(seconds * 1e9); }

// Milliseconds until `deadline`, rounded up so that a poll() never returns just before it.
int ms_until(LinkTime deadline) {
  const LinkTime now = now_ns();
  if (now >= deadline) return 0;
  const LinkTime ms = (deadline - now + 999'999) / 1'000'000;
  return static_cast<int>(std::min<LinkTime>(ms, INT_MAX));
}

speed_t speed_of(unsigned baud) {
  switch (baud) {
    case 115200:
      return B115200;
    case 230400:
      return B230400;
    case 460800:
      return B460800;
    case 921600:
      return B921600;
    case 1000000:
      return B1000000;
    case 1500000:
      return B1500000;
    case 2000000:
      return B2000000;
    case 3000000:
      return B3000000;
    default:
      break;
  }
  check_serial_baud(baud);  // throws
  return B0;
}

}  // namespace

void check_serial_baud(unsigned baud) {
  if (std::find(kSerialBauds.begin(), kSerialBauds.end(), baud) == kSerialBauds.end()) {
    throw core::input_error("a serial line at {} baud is not supported; use one of {}", baud,
                            fmt::join(kSerialBauds, ", "));
  }
}

SerialLink::SerialLink(const SerialOptions& options) : options_(options) {
  const speed_t speed = speed_of(options.baud);
  if (!(options.allowance_seconds > 0.0 && options.allowance_seconds <= kMaxAnswerAllowanceSeconds)) {
    throw core::input_error("the time allowed for each answer must be positive and at most {} s (got {} s)",
                            kMaxAnswerAllowanceSeconds, options.allowance_seconds);
  }
  const std::string path = options.port.string();
  // O_NONBLOCK: open() must not wait for a carrier, and no read or write may block.
  fd_ = io::UniqueFd(::open(path.c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC));
  if (!fd_) {
    const int error = errno;
    if (error == ENOENT) throw core::input_error("{}: no such serial port; give the device of the NPU's UART", path);
    if (error == EACCES) {
      throw core::input_error("{}: permission denied; add your user to the group that owns the port (often dialout)",
                              path);
    }
    throw core::input_error("cannot open the serial port {}: {}", path, std::strerror(error));
  }
  if (::isatty(fd_.get()) != 1) throw core::input_error("{} is not a serial port (not a terminal device)", path);
  termios tio{};
  if (::tcgetattr(fd_.get(), &tio) != 0) {
    throw core::input_error("{}: cannot read its line settings: {}", path, std::strerror(errno));
  }
  ::cfmakeraw(&tio);
  tio.c_cflag &= ~static_cast<tcflag_t>(CSIZE | PARENB | CSTOPB | CRTSCTS);
  tio.c_cflag |= CS8 | CLOCAL | CREAD;
  tio.c_iflag &= ~static_cast<tcflag_t>(IXON | IXOFF | IXANY);
  tio.c_cc[VMIN] = 0;  // reads return what is there; poll() does the waiting
  tio.c_cc[VTIME] = 0;
  if (::cfsetispeed(&tio, speed) != 0 || ::cfsetospeed(&tio, speed) != 0 ||
      ::tcsetattr(fd_.get(), TCSANOW, &tio) != 0) {
    throw core::input_error("{}: cannot set {} baud 8N1: {}", path, options.baud, std::strerror(errno));
  }
  // A driver may accept tcsetattr() and keep another rate: read back what it did.
  if (::tcgetattr(fd_.get(), &tio) != 0 || ::cfgetospeed(&tio) != speed) {
    throw core::input_error("{} does not run at {} baud; try another rate", path, options.baud);
  }
  ::tcflush(fd_.get(), TCIOFLUSH);  // whatever an earlier program left in the buffers
}

void SerialLink::went_away() const {
  throw core::input_error(
      "{}: the port went away (the device was unplugged, or the program at its other end closed it)",
      options_.port.string());
}

bool SerialLink::read_some(LinkTime deadline) {
  for (;;) {
    pollfd p{fd_.get(), POLLIN, 0};
    const int ready = ::poll(&p, 1, ms_until(deadline));
    if (ready < 0) {
      if (errno == EINTR) continue;
      throw core::input_error("{}: waiting for the NPU failed: {}", options_.port.string(), std::strerror(errno));
    }
    if (ready == 0) return false;
    if ((p.revents & POLLNVAL) != 0) went_away();
    std::uint8_t bytes[kReadBytes];
    const ssize_t n = ::read(fd_.get(), bytes, sizeof bytes);
    if (n > 0) {
      buffer_.insert(buffer_.end(), bytes, bytes + n);
      counters_.bytes_received += static_cast<std::uint64_t>(n);
      return true;
    }
    // With VMIN = VTIME = 0 a read of 0 bytes is "nothing there" unless the line hung up.
    if (n == 0 && (p.revents & (POLLHUP | POLLERR)) != 0) went_away();
    if (n < 0 && errno == EIO) went_away();
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      throw core::input_error("{}: reading failed: {}", options_.port.string(), std::strerror(errno));
    }
    if (now_ns() >= deadline) return false;
  }
}

std::optional<UartByte> SerialLink::receive(LinkTime deadline) {
  for (;;) {
    // The deadline comes first, so that a port sending a stream of noise cannot keep the
    // protocol here.
    if (now_ns() >= deadline) return std::nullopt;
    if (head_ < buffer_.size()) {
      const std::uint8_t value = buffer_[head_++];
      if (head_ == buffer_.size()) {
        buffer_.clear();
        head_ = 0;
      }
      return UartByte{value, false};
    }
    read_some(deadline);
  }
}

void SerialLink::send(std::span<const std::uint8_t> bytes) {
  // The port takes the bytes at the baud rate; more than that plus the allowance is a stuck port.
  const double wire_seconds = 10.0 * static_cast<double>(bytes.size()) / options_.baud;
  const LinkTime deadline = after(wire_seconds + options_.allowance_seconds);
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd_.get(), bytes.data() + done, bytes.size() - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EIO || errno == EPIPE || errno == ENXIO)) went_away();
    if (n < 0 && errno != EAGAIN) {
      throw core::input_error("{}: writing failed: {}", options_.port.string(), std::strerror(errno));
    }
    pollfd p{fd_.get(), POLLOUT, 0};
    const int ready = ::poll(&p, 1, ms_until(deadline));
    if (ready < 0 && errno != EINTR) {
      throw core::input_error("{}: waiting to write failed: {}", options_.port.string(), std::strerror(errno));
    }
    if (ready > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0) went_away();
    if (ready == 0 && now_ns() >= deadline) {
      throw core::input_error(
          "{}: the port takes no more bytes (blocked for {:.1f} s); check that nothing else holds it "
          "and that the NPU reads its UART",
          options_.port.string(), options_.allowance_seconds);
    }
  }
  counters_.bytes_sent += bytes.size();
}

// A PTY ignores the baud rate, and its other end may be a simulator that runs slower than the
// line it models: the Verilated NPU at 4 clocks per bit simulates about 11 M cycles/s, a
// little under 3 Mbaud, several times slower under the sanitizers, and an INFER adds ~15k
// cycles of compute; either process may also be descheduled for a while. A board answers
// within the wire time and microseconds. So each wait gets a fixed allowance of seconds on
// top of what the baud and the NPU's cycles need: it costs nothing when the NPU answers, and
// only delays the error when it does not.
LinkTime SerialLink::deadline_after(const LinkBudget& budget) const {
  const double seconds = static_cast<double>(budget.wire_bits) / options_.baud +
                         static_cast<double>(budget.npu_cycles) / kSlowestNpuClockHz + options_.allowance_seconds;
  return after(seconds);
}

void SerialLink::discard_until_quiet() {
  const double quiet = std::max(kQuietSeconds, kQuietBits / options_.baud);
  const double longest = kLongestResponseBits / options_.baud + options_.allowance_seconds;
  const LinkTime give_up = after(longest);
  for (;;) {
    buffer_.clear();
    head_ = 0;
    if (!read_some(after(quiet))) return;
    if (now_ns() >= give_up) {
      throw core::input_error(
          "{}: bytes keep arriving that are not answers from the NPU (for {:.1f} s); check that the "
          "NPU is on this port and runs its UART at {} baud",
          options_.port.string(), longest, options_.baud);
    }
  }
}

LinkCounters SerialLink::counters() const { return counters_; }

std::string SerialLink::silence_advice() const {
  return fmt::format("check that the NPU is on {} and runs its UART at {} baud", options_.port.string(), options_.baud);
}

}  // namespace seatorch::npu
