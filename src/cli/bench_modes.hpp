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

// Where a two-thread run's first two CPUs were, and how fast each was alone, around its timed
// work (bench/cpu_distance.hpp): a header line "# CPUs 0 and 1: a cache line's round trip 52
// ns before the epochs, 54 ns after; alone, the sparse product (bench cpus) 50.1 and 64.2 us
// before, ..." (`during` names the work), and its JSON, {"cpus": [0, 1], "before": 52.1,
// "after": 54.0} for the round trip and {"cpus": [0, 1], "before": [50.1, 64.2], "after": [...]}
// for the sparse product; nothing, and null, on one thread.
void print_cpu_distance(const std::optional<bench::CpuPlacement>& cpus, const std::string& during);
nlohmann::json cpu_distance_json(const std::optional<bench::CpuPlacement>& cpus);
nlohmann::json cpu_speed_json(const std::optional<bench::CpuPlacement>& cpus);

}  // namespace seatorch::cli
