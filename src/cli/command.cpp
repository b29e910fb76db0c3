// Helpers shared by the subcommands.
#include "command.hpp"

#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <iostream>
#include <string>

namespace seatorch::cli {

const CLI::Validator kPositiveInteger(
    [](const std::string& text) -> std::string {
      std::uint64_t value = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || end != text.data() + text.size() || value == 0) {
        return "expected a positive integer, got '" + text + "'";
      }
      return {};
    },
    "POSITIVE");

const CLI::Validator kPositiveReal(
    [](const std::string& text) -> std::string {
      std::size_t used = 0;
      double value = 0.0;
      try {
        value = std::stod(text, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != text.size() || !(value > 0.0)) {
        return "expected a positive number, got '" + text + "'";
      }
      return {};
    },
    "POSITIVE");

void print_json(const nlohmann::json& result) { std::cout << result.dump(2) << '\n' << std::flush; }

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

}  // namespace seatorch::cli
