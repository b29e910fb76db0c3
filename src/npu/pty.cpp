// PtyMaster: the POSIX calls that make a pseudo-terminal, each failure one InputError.
#include "seatorch/npu/pty.hpp"

#include "seatorch/core/error.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <termios.h>

#include <cerrno>
#include <cstring>

namespace seatorch::npu {
namespace {

[[noreturn]] void fail(const char* what) {
  throw core::input_error("cannot make a pseudo-terminal: {} failed: {}", what, std::strerror(errno));
}

}  // namespace

PtyMaster::PtyMaster() : fd_(::posix_openpt(O_RDWR | O_NOCTTY)) {
  if (!fd_) fail("posix_openpt");
  if (::grantpt(fd_.get()) != 0) fail("grantpt");
  if (::unlockpt(fd_.get()) != 0) fail("unlockpt");
  // Set after opening: posix_openpt() is specified for O_RDWR and O_NOCTTY only.
  if (::fcntl(fd_.get(), F_SETFL, ::fcntl(fd_.get(), F_GETFL) | O_NONBLOCK) != 0) fail("fcntl(O_NONBLOCK)");
  if (::fcntl(fd_.get(), F_SETFD, FD_CLOEXEC) != 0) fail("fcntl(FD_CLOEXEC)");
  termios tio{};
  if (::tcgetattr(fd_.get(), &tio) != 0) fail("tcgetattr");
  ::cfmakeraw(&tio);
  if (::tcsetattr(fd_.get(), TCSANOW, &tio) != 0) fail("tcsetattr");
  char name[128];
  if (::ptsname_r(fd_.get(), name, sizeof name) != 0) fail("ptsname_r");
  slave_path_ = name;
}

}  // namespace seatorch::npu
