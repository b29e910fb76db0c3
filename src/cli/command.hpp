// What every subcommand file under src/cli/ provides, and the helpers they share.
//
// A subcommand registers its options on the CLI11 app and returns a Command whose `run`
// is called after parsing succeeds. The CLI layer only parses, reports and calls the
// library; it never holds behaviour of its own.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace seatorch::cli {

struct Command {
  CLI::App* app;                    // the subcommand, owned by the root app
  std::function<int()> run;         // returns the exit code; empty for a command with modes
  std::vector<Command> modes = {};  // `bench matmul`, ...: sub-subcommands, one of which runs
  // The library's names of the values this command's flags set ("learning rate" -> "--lr"):
  // the library names values, never flags (core::OptionError), and main.cpp puts the flag
  // that set the value in front of the message.
  std::map<std::string, std::string> flags = {};

  // Records that `option` sets the library's `value`, and returns it for chaining:
  // `command.sets("learning rate", app->add_option("--lr", f->lr, "..."))->check(...)`.
  CLI::Option* sets(const std::string& value, CLI::Option* option);
};

// The deepest parsed command (`bench` -> `bench matmul`); the one whose `run` is called.
const Command& parsed_command(const std::vector<Command>& commands);

// "seatorch", "seatorch train", "seatorch bench matmul": the deepest subcommand parsed.
std::string command_path(const CLI::App& root);

// After a failed parse: "unknown command 'trian'; did you mean 'train'?" or "unknown option
// '--epohcs'; did you mean '--epochs'?" for the first argument the deepest parsed app did
// not recognise (nothing when every argument was recognised: the error is another one), or
// "'--threads' is an option of 'seatorch bench train': give it after 'train'" for one of that
// command's options given before its name, or "'--threads' is an option of 'seatorch train',
// ...: give it after the command's name" for an option of commands not named at all.
std::optional<std::string> unrecognised_argument(const CLI::App& root);

// After parsing, whether or not it failed: an option that took another option as its value
// ("--out: expected a value, got the option '--quiet'; ..."), for a value forgotten before the
// next option. CLI11 2.1 takes the next argument whatever it is: `--out --quiet` wrote the
// model to a file named "--quiet".
std::optional<std::string> option_taken_as_value(const CLI::App& root);

// Before parsing: the first argument `--name=` with nothing after the '=' (up to a `--` that
// ends the options), as one line saying so. CLI11 2.1 reads it as the option without a value
// and takes the next argument as its value: `--data-dir= --epochs 1` set the data directory
// to "--epochs".
std::optional<std::string> empty_assignment(int argc, const char* const* argv);

// The first of `flags` given on the command line of `app`, if any: for the checks that refuse
// a flag another setting makes meaningless.
std::optional<std::string_view> first_given(const CLI::App& app, std::initializer_list<const char*> flags);

// Prints the one JSON object of a `--json` run on stdout (a full disk is an error, not a
// silently empty file).
void print_json(const nlohmann::json& result);

// Validators of a real-valued option, with one-line messages that say what is expected. The
// text must be one finite decimal number: CLI11's own range checks let "nan" through, and
// "inf" wherever no upper bound stops it.
extern const CLI::Validator kPositiveReal;         // > 0
extern const CLI::Validator kNonNegativeReal;      // >= 0
CLI::Validator real_in(double min, double max);    // in [min, max]
CLI::Validator positive_real_at_most(double max);  // in (0, max]

// The check behind add_count: a decimal integer in [min, max] as typed (no sign, no
// spaces), rewritten in canonical form; `open_ended` when max is only the type's limit.
CLI::Validator count_validator(std::uint64_t min, std::uint64_t max, bool open_ended);

// The one way to declare an unsigned option (a count, a size, a seed): a decimal integer in
// [min, max], checked on the text itself, because CLI11's conversion would read "-1" as
// 2^64 - 1 and "010" as octal. Anything else is refused with one line naming the flag and
// the accepted range, e.g. "--batch: expected an integer >= 0, got '-1'".
template <typename T>
CLI::Option* add_count(CLI::App* app, const std::string& flag, T& value, const std::string& help, std::uint64_t min = 0,
                       std::uint64_t max = std::numeric_limits<T>::max()) {
  static_assert(std::is_unsigned_v<T>, "add_count declares unsigned options");
  const std::uint64_t limit = std::min<std::uint64_t>(max, std::numeric_limits<T>::max());
  return app->add_option(flag, value, help)
      ->transform(count_validator(min, limit, limit == std::numeric_limits<T>::max()));
}

// --threads N, for a command whose work runs through core/parallel.hpp; `what` says what the
// threads share ("the products"). The value stays 0 when the flag is not given; use_threads()
// then leaves the count to SEATORCH_THREADS (else 1).
CLI::Option* add_threads(Command& command, CLI::App* app, std::size_t& threads, std::string_view what);
// What a training run's threads share, for add_threads (train and bench train).
inline constexpr std::string_view kTrainingThreadWork =
    "the products, the batch gather, the augmentation and the optimizer";

// Applies a parsed --threads, and resolves SEATORCH_THREADS now, so that a bad value there is
// reported before any work starts.
void use_threads(std::size_t threads);

// A comma-separated list option (`--hidden 256,128`, `--kernel avx2,avx512`): the text as
// typed, split at every comma, each item checked by `item` (which may rewrite it, as
// count_validator does), then handed to `store`. A list with an empty item ("256,,128", "4,",
// ",") is refused with one line. The split is done here rather than by CLI11's delimiter,
// which drops empty items without a word and, given "," alone, takes the next argument
// ("--epochs") as the list. `type` is the item's type in the help ("UINT", "TEXT").
CLI::Option* add_list(CLI::App* app, const std::string& flag, const std::string& help, const std::string& type,
                      CLI::Validator item, std::function<void(std::vector<std::string>&&)> store);

// add_count's comma-separated list form: `--hidden 256,128`.
template <typename T>
CLI::Option* add_counts(CLI::App* app, const std::string& flag, std::vector<T>& values, const std::string& help,
                        std::uint64_t min = 0, std::uint64_t max = std::numeric_limits<T>::max()) {
  static_assert(std::is_unsigned_v<T>, "add_counts declares unsigned options");
  const std::uint64_t limit = std::min<std::uint64_t>(max, std::numeric_limits<T>::max());
  return add_list(app, flag, help, "UINT", count_validator(min, limit, limit == std::numeric_limits<T>::max()),
                  [&values](std::vector<std::string>&& items) {
                    values.clear();  // each item is already a canonical integer in range
                    for (const std::string& text : items) values.push_back(static_cast<T>(std::stoull(text)));
                  });
}

// True when stderr is a terminal (progress bars) rather than a file or pipe (log lines).
bool stderr_is_terminal();

Command register_train(CLI::App& root);
Command register_eval(CLI::App& root);
Command register_quantize(CLI::App& root);
Command register_export(CLI::App& root);
Command register_sim(CLI::App& root);
Command register_serve(CLI::App& root);  // src/cli/serve.cpp: `serve --npu --pty`
Command register_predict(CLI::App& root);
Command register_bench(CLI::App& root);  // src/cli/bench.cpp: `bench matmul|train|int8`

}  // namespace seatorch::cli
