// seatorch's entry point: the root CLI11 app, global flags, logging, and the mapping from
// errors to exit codes (1: bad input or usage, 2: internal error) and to one line each (a
// library OptionError led by the flag that set the value, a mistyped name with the nearest). Each subcommand lives
// in src/cli/<name>.cpp and is listed once below.
#include "cli/command.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/version.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <exception>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <vector>

namespace {

void setup_logging(int verbosity, bool quiet) {
  // Logs and progress go to stderr so that stdout carries only results (--json).
  auto logger = spdlog::stderr_color_mt("seatorch");
  logger->set_pattern("%^[%l]%$ %v");
  spdlog::set_default_logger(logger);
  if (quiet) {
    spdlog::set_level(spdlog::level::warn);
  } else if (verbosity >= 2) {
    spdlog::set_level(spdlog::level::trace);
  } else if (verbosity == 1) {
    spdlog::set_level(spdlog::level::debug);
  } else {
    spdlog::set_level(spdlog::level::info);
  }
}

int run(int argc, char** argv) {
  CLI::App root{"seatorch: train it yourself, down to the silicon.", "seatorch"};
  root.set_version_flag("--version", std::string("seatorch ") + seatorch::kVersion);
  int verbosity = 0;
  bool quiet = false;
  root.add_flag("-v,--verbose", verbosity, "More logging on stderr: -v debug, -vv trace");
  root.add_flag("-q,--quiet", quiet, "Only warnings and errors on stderr");
  root.require_subcommand(1);
  root.fallthrough();  // global flags may also follow the subcommand: `seatorch train -v`

  const std::vector<seatorch::cli::Command> commands{
      seatorch::cli::register_train(root),    seatorch::cli::register_eval(root),
      seatorch::cli::register_quantize(root), seatorch::cli::register_export(root),
      seatorch::cli::register_sim(root),      seatorch::cli::register_serve(root),
      seatorch::cli::register_predict(root),  seatorch::cli::register_bench(root),
  };

  using seatorch::cli::command_path;
  if (const auto empty = seatorch::cli::empty_assignment(argc, argv)) {
    std::cerr << "seatorch: error: " << *empty << '\n';
    return 1;
  }
  std::optional<std::string> parse_error;  // CLI11's own words, when it refused the arguments
  try {
    root.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return root.exit(e);  // --help, --version
    parse_error = e.what();
  }
  // Parsed or not, an option may have taken the next option as its value (the cause of the
  // error CLI11 reports, when it reports one); a mistyped command or option is named with the
  // nearest valid name; other errors as CLI11 words them.
  std::optional<std::string> error = seatorch::cli::option_taken_as_value(root);
  if (!error && parse_error) {
    error = seatorch::cli::unrecognised_argument(root);
    if (!error) error = *parse_error + " (see '" + command_path(root) + " --help')";
  }
  if (error) {
    std::cerr << command_path(root) << ": error: " << *error << '\n';
    return 1;
  }

  setup_logging(verbosity, quiet);
  const seatorch::cli::Command& command = seatorch::cli::parsed_command(commands);
  try {
    return command.run();
  } catch (const seatorch::core::OptionError& e) {
    // The library named the value ("learning rate"); the command knows the flag that set it.
    const auto flag = command.flags.find(e.value());
    if (flag == command.flags.end()) throw;
    std::cerr << command_path(root) << ": error: " << flag->second << ": " << e.what() << '\n';
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const seatorch::core::InputError& e) {
    std::cerr << "seatorch: error: " << e.what() << '\n';
    return 1;
  } catch (const std::bad_alloc&) {
    // The machine's limit, not a bug: a model, batch or data set too large for its memory.
    std::cerr << "seatorch: error: out of memory; a smaller model, batch or data set, or a machine with more "
                 "memory, is needed\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "seatorch: internal error: " << e.what() << " (please report this)\n";
    return 2;
  } catch (...) {
    std::cerr << "seatorch: internal error: unknown exception (please report this)\n";
    return 2;
  }
}
