// Shared by the libFuzzer targets: the contract every reader must keep on any input.
//
// A reader either returns a value that passes the target's checks or throws InputError;
// any other outcome is a bug that libFuzzer must see as a crash: another exception escapes
// (std::terminate aborts), a sanitizer reports, or a check below fails (abort with a line
// saying which). Deliberately tiny: each target states its own checks.
#pragma once

#include "seatorch/core/error.hpp"

#include <cstdio>
#include <cstdlib>

namespace seatorch::fuzz {

// Aborts, naming the broken promise, when `ok` is false.
inline void require(bool ok, const char* promise) {
  if (ok) return;
  std::fprintf(stderr, "fuzz check failed: %s\n", promise);
  std::abort();
}

// Runs `read`; an InputError is the reader's correct answer to a malformed input.
template <typename Read>
void reject_or_accept(Read read) {
  try {
    read();
  } catch (const core::InputError&) {
  }
}

}  // namespace seatorch::fuzz
