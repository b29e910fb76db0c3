// The one error type seatorch reports to its user.
//
// InputError means "the input or the usage was wrong": a bad flag, a missing or truncated
// file, a shape that does not fit. Its message is one line that names what was wrong and
// how to fix it; the CLI prints it and exits with code 1. Every other exception reaching
// the CLI is a bug in seatorch and exits with code 2.
//
// OptionError is the one refinement: an InputError about a value the caller chose (a
// learning rate, a batch size, the data set to use). The library names the value in its own
// words ("learning rate"), never a command-line flag, because a library caller (QAT, a test)
// typed no flag; the CLI, which knows which flag set the value, prefixes the message with it
// (src/cli/command.hpp). Deliberately no error codes: the message is the interface.
#pragma once

#include <fmt/format.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace seatorch::core {

class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

// `value` is the library's name for the value ("learning rate"); the message says what is
// wrong with it and, like every InputError, reads on its own.
class OptionError : public InputError {
 public:
  OptionError(std::string value, const std::string& message) : InputError(message), value_(std::move(value)) {}
  [[nodiscard]] const std::string& value() const { return value_; }

 private:
  std::string value_;
};

// `throw option_error("learning rate", "the learning rate must be positive, got {}", lr);`
template <typename... Args>
[[nodiscard]] OptionError option_error(std::string value, fmt::format_string<Args...> format, Args&&... args) {
  return OptionError(std::move(value), fmt::format(format, std::forward<Args>(args)...));
}

// Builds an InputError with fmt formatting: `throw input_error("{}: expected {}", path, n);`
template <typename... Args>
[[nodiscard]] InputError input_error(fmt::format_string<Args...> format, Args&&... args) {
  return InputError(fmt::format(format, std::forward<Args>(args)...));
}

// Text taken from a file (a tensor name, a CSV field), made safe to quote in a one-line
// message: control bytes become \xNN escapes and anything past `max_bytes` becomes "...",
// so a hostile file can neither break the line nor flood the terminal.
inline std::string printable(std::string_view text, std::size_t max_bytes = 80) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    // Cut at a character boundary: never inside a UTF-8 sequence (continuation bytes 10xxxxxx).
    if (out.size() >= max_bytes && (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7F) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace seatorch::core
