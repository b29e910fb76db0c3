// What every subcommand file under src/cli/ provides, and the helpers they share.
//
// A subcommand registers its options on the CLI11 app and returns a Command whose `run`
// is called after parsing succeeds. The CLI layer only parses, reports and calls the
// library; it never holds behaviour of its own.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <functional>

namespace seatorch::cli {

struct Command {
  CLI::App* app;             // the subcommand, owned by the root app
  std::function<int()> run;  // returns the exit code
};

// Prints the one JSON object of a `--json` run on stdout.
void print_json(const nlohmann::json& result);

// Validators with one-line messages that say what is expected.
extern const CLI::Validator kPositiveInteger;  // 1, 2, 3, ...
extern const CLI::Validator kPositiveReal;     // > 0

// True when stderr is a terminal (progress bars) rather than a file or pipe (log lines).
bool stderr_is_terminal();

Command register_train(CLI::App& root);
Command register_eval(CLI::App& root);
Command register_quantize(CLI::App& root);
Command register_export(CLI::App& root);
Command register_sim(CLI::App& root);
Command register_serve(CLI::App& root);  // src/cli/serve.cpp: `serve --npu --pty`
Command register_predict(CLI::App& root);
Command register_bench(CLI::App& root);  // src/cli/bench.cpp: `bench matmul`

}  // namespace seatorch::cli
