// The modes of `seatorch bench` (bench.cpp registers them), one file each:
// bench_matmul.cpp, bench_train.cpp, bench_int8.cpp and bench_cpus.cpp, and what they share.
// Deliberately not here: anything a mode does on its own.
#pragma once

#include "command.hpp"

#include "seatorch/bench/cpu_distance.hpp"
#include "seatorch/bench/matmul_bench.hpp"
#include "seatorch/bench/timing.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace seatorch::cli {

// Each registers its mode under `bench` with its flags and its run function.
Command register_matmul_bench(CLI::App& bench);
Command register_train_bench(CLI::App& bench);
Command register_int8_bench(CLI::App& bench);
Command register_cpus_bench(CLI::App& bench);

// --clock, shared by the modes that time single-threaded work, `note` appended to its help;
// parse_clock reads its value.
CLI::Option* add_clock_option(CLI::App* app, std::string& clock, std::string_view note = {});
bench::TimingClock parse_clock(const std::string& clock);

// "MxNxK:form", as `--shapes` takes it.
std::string shape_label(const bench::MatmulProblem& p);

// The first header line of every mode: the machine its figures belong to.
void print_cpu(const std::string& cpu);

// With two threads or more, how far apart the first two CPUs were before and after the timed
// work (bench/cpu_distance.hpp): a header line "# CPUs 0 and 1: a cache line's round trip 52
// ns before the epochs, 54 ns after" (`during` names the work), and its JSON, {"cpus": [0, 1],
// "before": 52.1, "after": 54.0}; nothing, and null, on one thread.
void print_cpu_distance(const std::optional<bench::CpuPlacement>& cpus, const std::string& during);
nlohmann::json cpu_distance_json(const std::optional<bench::CpuPlacement>& cpus);

}  // namespace seatorch::cli
