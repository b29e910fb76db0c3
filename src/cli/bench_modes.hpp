// The modes of `seatorch bench` (bench.cpp registers them), one file each:
// bench_matmul.cpp, bench_train.cpp and bench_int8.cpp, and what they share.
// Deliberately not here: anything a mode does on its own.
#pragma once

#include "command.hpp"

#include "seatorch/bench/matmul_bench.hpp"
#include "seatorch/bench/timing.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace seatorch::cli {

// Each registers its mode under `bench` with its flags and its run function.
Command register_matmul_bench(CLI::App& bench);
Command register_train_bench(CLI::App& bench);
Command register_int8_bench(CLI::App& bench);

// --clock, shared by the modes that time single-threaded work; parse_clock reads its value.
CLI::Option* add_clock_option(CLI::App* app, std::string& clock);
bench::TimingClock parse_clock(const std::string& clock);

// "MxNxK:form", as `--shapes` takes it.
std::string shape_label(const bench::MatmulProblem& p);

// The first header line of every mode: the machine its figures belong to.
void print_cpu(const std::string& cpu);

}  // namespace seatorch::cli
