// SerialLink: the NpuLink of a Mini NPU on a real serial port, or on a pseudo-terminal whose
// other end plays one (`seatorch serve --npu --pty`). The port is set to raw 8N1 at one of
// kSerialBauds, no flow control, and read and written without blocking, with poll() for
// every wait, so no call outlives its deadline. Time is the steady clock: a budget becomes
// its wire bits at the baud, its NPU cycles at the slowest clock the NPU is built for, and a
// fixed allowance per wait (serial_link.cpp says why it is generous).
// A port that goes away (EOF, EIO, POLLHUP, POLLERR) is an InputError at once; one that stays
// silent or sends noise is the protocol's to resend to and give up on.
// Deliberately not here: framing errors (a termios read in raw mode does not report them; the
// CRC catches what they would), modem lines, fault injection (the simulated line's).
#pragma once

#include "seatorch/io/unique_fd.hpp"
#include "seatorch/npu/link.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace seatorch::npu {

// The line rates SerialLink sets: the common USB-UART rates from 115200 baud up.
inline constexpr std::array<unsigned, 8> kSerialBauds{115200,  230400,  460800,  921600,
                                                      1000000, 1500000, 2000000, 3000000};

// Throws InputError naming the supported rates unless `baud` is one of them.
void check_serial_baud(unsigned baud);

// The longest wait for an answer SerialLink allows on top of its time on the wire: an NPU
// silent for an hour is hung, not slow, and deadlines are kept in integer nanoseconds.
inline constexpr double kMaxAnswerAllowanceSeconds = 3600.0;

struct SerialOptions {
  std::filesystem::path port;  // e.g. /dev/ttyUSB1
  unsigned baud = 3000000;
  double allowance_seconds = 2.0;  // added to every wait for the NPU, in (0, kMaxAnswerAllowanceSeconds]
};

class SerialLink final : public NpuLink {
 public:
  // Opens and sets up the port, and drops whatever it held. Throws InputError for a path that
  // does not exist, is not a terminal device, or does not take the settings, and for an
  // allowance outside (0, kMaxAnswerAllowanceSeconds].
  explicit SerialLink(const SerialOptions& options);

  void send(std::span<const std::uint8_t> bytes) override;
  std::optional<UartByte> receive(LinkTime deadline) override;
  [[nodiscard]] LinkTime deadline_after(const LinkBudget& budget) const override;
  // Reads until nothing has arrived for a few byte times (at least 50 ms); throws InputError
  // when bytes keep arriving for longer than the longest response could take.
  void discard_until_quiet() override;
  [[nodiscard]] LinkCounters counters() const override;
  [[nodiscard]] std::string silence_advice() const override;

  [[nodiscard]] const SerialOptions& options() const { return options_; }

 private:
  // Reads what has arrived, waiting for it until `deadline`; false when nothing came.
  bool read_some(LinkTime deadline);
  [[noreturn]] void went_away() const;

  SerialOptions options_;
  io::UniqueFd fd_;
  std::vector<std::uint8_t> buffer_;  // read, from head_ on not yet received
  std::size_t head_ = 0;
  LinkCounters counters_;
};

}  // namespace seatorch::npu
