// SIGINT and SIGTERM as a request to stop: while a StopSignals object lives, the first of
// them only sets a flag (the training loop polls it between steps through its should_stop
// callback); a second one gets the default action, so a second Ctrl-C still kills at once.
//
// The handler does nothing but async-signal-safe work: it stores the signal's number in a
// volatile sig_atomic_t and, the second time, restores the default action and re-raises.
// The flag is global because a signal handler can reach nothing else; it lives here in the
// CLI, never in the library, which only sees a callback. Deliberately not here: other
// signals, and threads (seatorch trains on one thread).
#pragma once

#include <csignal>
#include <string_view>

namespace seatorch::cli {

class StopSignals {
 public:
  StopSignals();   // installs the handlers for SIGINT and SIGTERM (and clears the flag)
  ~StopSignals();  // restores the previous handlers
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // The first stop signal received (SIGINT or SIGTERM), or 0.
  static int received();
  // "SIGINT", "SIGTERM".
  static std::string_view name(int signal);

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
};

}  // namespace seatorch::cli
