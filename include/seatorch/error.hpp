// The one error type seatorch reports to its user.
//
// InputError means "the input or the usage was wrong": a bad flag, a missing or truncated
// file, a shape that does not fit. Its message is one line that names what was wrong and
// how to fix it; the CLI prints it and exits with code 1. Every other exception reaching
// the CLI is a bug in seatorch and exits with code 2. This header deliberately has no
// error codes or hierarchy beyond that: the message is the interface.
#pragma once

#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace seatorch {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

// Builds an InputError with fmt formatting: `throw input_error("{}: expected {}", path, n);`
template <typename... Args>
[[nodiscard]] InputError input_error(fmt::format_string<Args...> format, Args&&... args) {
  return InputError(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace seatorch
