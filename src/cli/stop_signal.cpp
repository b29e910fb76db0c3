// The stop-signal flag and its handler (see stop_signal.hpp).
#include "stop_signal.hpp"

namespace seatorch::cli {
namespace {

volatile std::sig_atomic_t g_received = 0;

extern "C" void on_stop_signal(int signal) {
  if (g_received != 0) {  // the second request: stop now, the default way
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  g_received = signal;
}

void install(int signal, struct sigaction* previous) {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // a read or write in progress carries on; the flag is polled
  sigaction(signal, &action, previous);
}

}  // namespace

StopSignals::StopSignals() {
  g_received = 0;
  install(SIGINT, &previous_int_);
  install(SIGTERM, &previous_term_);
}

StopSignals::~StopSignals() {
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
}

int StopSignals::received() { return g_received; }

std::string_view StopSignals::name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return "a signal";
  }
}

}  // namespace seatorch::cli
