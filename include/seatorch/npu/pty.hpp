// PtyMaster: a fresh pseudo-terminal's master end, non-blocking and in raw mode, and the path
// of its slave end, which another program opens as it would a serial port. The PTY bridge
// (pty_serve.hpp) serves the simulated NPU on one; tests use a bare one as a port whose other
// end they control.
// Deliberately no reading or writing here: what the bytes mean is the user's business.
#pragma once

#include "seatorch/io/unique_fd.hpp"

#include <string>

namespace seatorch::npu {

class PtyMaster {
 public:
  // posix_openpt, grantpt, unlockpt, raw mode (set on the master, which on Linux sets the
  // slave's line discipline: no echo, no line editing, no CR/LF translation). Throws
  // InputError when the system gives no pseudo-terminal.
  PtyMaster();

  [[nodiscard]] int fd() const { return fd_.get(); }
  [[nodiscard]] const std::string& slave_path() const { return slave_path_; }
  void close() { fd_.reset(); }  // the slave's user sees the line hang up

 private:
  io::UniqueFd fd_;
  std::string slave_path_;
};

}  // namespace seatorch::npu
