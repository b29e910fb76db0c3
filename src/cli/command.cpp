// Helpers shared by the subcommands.
#include "command.hpp"

#include "seatorch/core/nearest_name.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/io/atomic_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <span>
#include <stdexcept>

namespace seatorch::cli {

CLI::Option* Command::sets(const std::string& value, CLI::Option* option) {
  flags[value] = option->get_name();
  return option;
}

CLI::Option* add_threads(Command& command, CLI::App* app, std::size_t& threads, std::string_view what) {
  return command.sets(
      "threads",
      add_count(app, "--threads", threads,
                fmt::format(
                    "Threads for {} (default: SEATORCH_THREADS, else 1); results are bit-identical on any count", what),
                1, core::kMaxThreads));
}

void use_threads(std::size_t threads) {
  if (threads > 0) core::set_threads(threads);
  (void)core::threads();
}

const Command& parsed_command(const std::vector<Command>& commands) {
  for (const Command& command : commands) {
    if (command.app->parsed()) return command.modes.empty() ? command : parsed_command(command.modes);
  }
  throw std::logic_error("no command was parsed");  // require_subcommand(1) guarantees one
}

namespace {

// The deepest app that was parsed: root, `train`, `bench`, `bench matmul`.
const CLI::App& deepest_parsed(const CLI::App& root) {
  const CLI::App* app = &root;
  while (!app->get_subcommands().empty()) app = app->get_subcommands().front();
  return *app;
}

// The commands `app` declares, parsed or not, without its option groups (which have no name).
std::vector<const CLI::App*> commands_of(const CLI::App& app) {
  std::vector<const CLI::App*> commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (!sub->get_name().empty()) commands.push_back(sub);
  }
  return commands;
}

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* command : commands_of(app)) names.push_back(command->get_name());
  return names;
}

// The long options `app` accepts, without their dashes: its own and, since subcommands fall
// through to their parents, the global ones.
std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* a = &app; a != nullptr; a = a->get_parent()) {
    for (const CLI::Option* option : a->get_options()) {
      for (const std::string& name : option->get_lnames()) names.push_back(name);
    }
  }
  return names;
}

// The commands below `app` that accept the option `typed` (`--threads`), named from `app` down:
// `train`, `bench train`.
std::vector<std::string> commands_taking(const CLI::App& app, const std::string& typed,
                                         const std::string& prefix = "") {
  std::vector<std::string> paths;
  for (const CLI::App* command : commands_of(app)) {
    const std::string path = prefix + command->get_name();
    if (command->get_option_no_throw(typed) != nullptr) paths.push_back(path);
    for (std::string& below : commands_taking(*command, typed, path + " ")) paths.push_back(std::move(below));
  }
  return paths;
}

}  // namespace

std::string command_path(const CLI::App& root) {
  std::string path = root.get_name();
  for (const CLI::App* app = &root; !app->get_subcommands().empty();) {
    app = app->get_subcommands().front();
    path += " " + app->get_name();
  }
  return path;
}

std::optional<std::string> unrecognised_argument(const CLI::App& root) {
  const std::vector<std::string> extras = root.remaining(true);
  const CLI::App& app = deepest_parsed(root);
  const std::vector<std::string> commands = command_names(app);
  const auto is_option = [](const std::string& arg) { return arg.size() > 1 && arg[0] == '-'; };
  // A command that takes subcommands got none: the first plain word was meant as one, unless an
  // option came first (`seatorch --threads 2`), whose value the word is likely to be.
  const auto word = std::find_if_not(extras.begin(), extras.end(), is_option);
  const auto option = std::find_if(extras.begin(), extras.end(), is_option);
  if (!commands.empty() && word != extras.end() && word < option) {
    if (const auto near = core::nearest_name(*word, commands)) {
      return fmt::format("unknown command '{}'; did you mean '{}'?", *word, *near);
    }
    return fmt::format("unknown command '{}'; the commands are {}", *word, fmt::join(commands, ", "));
  }
  if (option == extras.end()) return std::nullopt;
  const std::string typed = option->substr(0, option->find('='));  // --epohcs=3
  // The command's own option, left over: it was given before the command's name
  // (`seatorch --threads 2 bench train`), where no parser takes it.
  if (app.get_parent() != nullptr && app.get_option_no_throw(typed) != nullptr) {
    return fmt::format("'{}' is an option of '{}': give it after '{}'", typed, command_path(root), app.get_name());
  }
  // No command was named yet, and the option belongs to commands below (`seatorch --threads 2`).
  if (const std::vector<std::string> takers = commands_taking(app, typed); !takers.empty()) {
    const std::string here = command_path(root);
    std::vector<std::string> quoted;
    for (const std::string& taker : takers) quoted.push_back(fmt::format("'{} {}'", here, taker));
    return fmt::format("'{}' is an option of {}: give it after the command's name", typed, fmt::join(quoted, ", "));
  }
  if (typed.rfind("--", 0) == 0) {
    if (const auto near = core::nearest_name(typed.substr(2), option_names(app))) {
      return fmt::format("unknown option '{}'; did you mean '--{}'?", typed, *near);
    }
  }
  return fmt::format("unknown option '{}' (see '{} --help')", typed, command_path(root));
}

std::optional<std::string> option_taken_as_value(const CLI::App& root) {
  const CLI::App& app = deepest_parsed(root);
  const std::vector<std::string> long_names = option_names(app);
  const auto is_option = [&](const std::string& value) {
    const std::string typed = value.substr(0, value.find('='));  // --epochs=3
    if (typed.starts_with("--"))
      return std::find(long_names.begin(), long_names.end(), typed.substr(2)) != long_names.end();
    if (typed.size() != 2 || typed[0] != '-') return false;
    for (const CLI::App* a = &app; a != nullptr; a = a->get_parent()) {
      if (a->get_option_no_throw(typed) != nullptr) return true;  // -q, the global one
    }
    return false;
  };
  for (const CLI::App* a = &app; a != nullptr; a = a->get_parent()) {
    for (const CLI::Option* option : a->get_options()) {
      for (const std::string& value : option->results()) {
        if (!is_option(value)) continue;
        const std::string name = option->get_name();
        return fmt::format("{}: expected a value, got the option '{}'; give the value right after {}", name,
                           value.substr(0, value.find('=')), name);
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> empty_assignment(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg.size() > 3 && arg.starts_with("--") && arg.ends_with('=')) {
      return fmt::format("{}: no value after the '='; write it there ({}VALUE) or leave the option out", arg, arg);
    }
  }
  return std::nullopt;
}

std::optional<std::string_view> first_given(const CLI::App& app, std::initializer_list<const char*> flags) {
  for (const char* flag : flags) {
    if (app.count(flag) > 0) return flag;
  }
  return std::nullopt;
}

namespace {

// A validator of one finite number as typed, above `min` (or at it, when `min_allowed`) and at
// most `max`; `expected` says so in the message ("a finite number > 0"), `shown` in the help.
CLI::Validator real_validator(std::string expected, double min, bool min_allowed, double max, std::string shown) {
  return CLI::Validator(
      [=](const std::string& text) -> std::string {
        double value = 0.0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        const bool number = ec == std::errc() && end == text.data() + text.size() && std::isfinite(value);
        if (!number || !(min_allowed ? value >= min : value > min) || !(value <= max)) {
          return fmt::format("expected {}, got '{}'", expected, text);
        }
        return {};
      },
      std::move(shown));
}

constexpr double kLargest = std::numeric_limits<double>::max();

}  // namespace

const CLI::Validator kPositiveReal = real_validator("a finite number > 0", 0.0, false, kLargest, "POSITIVE");
const CLI::Validator kNonNegativeReal = real_validator("a finite number >= 0", 0.0, true, kLargest, "NONNEGATIVE");

CLI::Validator real_in(double min, double max) {
  return real_validator(fmt::format("a number in [{}, {}]", min, max), min, true, max,
                        fmt::format("[{}, {}]", min, max));
}

CLI::Validator positive_real_at_most(double max) {
  return real_validator(fmt::format("a number > 0 and <= {}", max), 0.0, false, max, fmt::format("(0, {}]", max));
}

CLI::Validator count_validator(std::uint64_t min, std::uint64_t max, bool open_ended) {
  const std::string range =
      open_ended ? fmt::format("an integer >= {}", min) : fmt::format("an integer in {}..{}", min, max);
  const std::string shown = open_ended ? (min == 0   ? ""
                                          : min == 1 ? "POSITIVE"
                                                     : fmt::format(">= {}", min))
                                       : fmt::format("{}..{}", min, max);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        const bool digits =
            !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
        std::uint64_t value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (digits && ec == std::errc::result_out_of_range) {
          return fmt::format("expected {}, got '{}' (the largest is {})", range, text, max);
        }
        if (!digits || ec != std::errc() || value < min || value > max) {
          return fmt::format("expected {}, got '{}'", range, text);
        }
        text = std::to_string(value);  // "010" is ten, not CLI11's octal eight
        return {};
      },
      shown);
}

CLI::Option* add_list(CLI::App* app, const std::string& flag, const std::string& help, const std::string& type,
                      CLI::Validator item, std::function<void(std::vector<std::string>&&)> store) {
  const std::string shown = item.get_description();
  return app
      ->add_option_function<std::string>(
          flag,
          [flag, item, store](const std::string& text) {
            std::vector<std::string> items;  // every piece between commas, the empty ones too
            for (std::size_t start = 0;;) {
              const std::size_t comma = text.find(',', start);
              items.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
              if (comma == std::string::npos) break;
              start = comma + 1;
            }
            for (std::string& piece : items) {
              if (piece.empty()) {
                throw CLI::ValidationError(
                    flag, fmt::format("expected a comma-separated list with no empty item, got '{}'", text));
              }
              const std::string error = item(piece);
              if (!error.empty()) throw CLI::ValidationError(flag, error);
            }
            store(std::move(items));
          },
          help)
      ->type_name(type + (shown.empty() ? "" : ":" + shown) + ",...");
}

void print_json(const nlohmann::json& result) {
  const std::string text = result.dump(2) + '\n';
  std::cout << std::flush;  // nothing else goes to stdout with --json; keep the order anyway
  io::write_all(STDOUT_FILENO,
                std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()),
                "the JSON results to stdout");
}

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

}  // namespace seatorch::cli
