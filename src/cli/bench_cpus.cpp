// `seatorch bench cpus`: how far apart the CPUs this process may use are, as a cache line's
// round trip from the first to each other one, and its JSON. The measuring is
// bench/cpu_distance.hpp's; read it before trusting a two-thread figure on a virtual machine.
#include "bench_modes.hpp"

#include "seatorch/bench/cpu_distance.hpp"
#include "seatorch/bench/machine.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <vector>

namespace seatorch::cli {
namespace {

int run_cpus_bench_command(bool json) {
  const std::vector<bench::CpuPair> pairs = bench::distances_from_first();
  if (json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const bench::CpuPair& p : pairs) rows.push_back({{"cpus", {p.a, p.b}}, {"round_trip_ns", p.round_trip_ns}});
    print_json({{"cpu", bench::this_cpu()}, {"pairs", rows}});
    return 0;
  }
  print_cpu(bench::this_cpu());
  if (pairs.empty()) {
    std::cout << "# one CPU usable: no pair to measure\n";
    return 0;
  }
  std::cout << fmt::format("# a cache line from one CPU to the other and back (median of {} runs of {} round trips)\n",
                           bench::kRoundTripRuns, bench::kRoundTripsPerRun);
  std::cout << "cpus        round trip\n";
  for (const bench::CpuPair& p : pairs) {
    std::cout << fmt::format("{:<10} {:>8.0f} ns\n", fmt::format("{}-{}", p.a, p.b), p.round_trip_ns);
  }
  return 0;
}

}  // namespace

Command register_cpus_bench(CLI::App& bench) {
  auto json = std::make_shared<bool>(false);
  CLI::App* app = bench.add_subcommand(
      "cpus", "How far apart the CPUs are: a cache line's round trip between the first and each other one");
  app->add_flag("--json", *json, "Print the results as one JSON object on stdout");
  Command command{app, {}};
  command.run = [json] { return run_cpus_bench_command(*json); };
  return command;
}

}  // namespace seatorch::cli
