// `seatorch bench cpus`: how far apart the CPUs this process may use are, as a cache line's
// round trip from the first to each other one, how fast each is alone and with all of them
// at once, and its JSON. The measuring is bench/cpu_distance.hpp's and bench/cpu_speed.hpp's;
// read them before trusting a one- or two-thread figure on a virtual machine.
#include "bench_modes.hpp"

#include "seatorch/bench/cpu_distance.hpp"
#include "seatorch/bench/cpu_speed.hpp"
#include "seatorch/bench/machine.hpp"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <vector>

namespace seatorch::cli {
namespace {

// The speeds table: each CPU's FMA peak and sparse product, how much slower than the fastest
// each one's product ran where they differ, and the product with every CPU running it at once
// where it was measured.
void print_speeds(const std::vector<bench::CpuSpeed>& speeds) {
  const bool at_once = !speeds.empty() && speeds.front().sparse_product_at_once_us.has_value();
  double fastest = 0.0;
  for (const bench::CpuSpeed& s : speeds) {
    if (fastest == 0.0 || s.sparse_product_us < fastest) fastest = s.sparse_product_us;
  }
  std::cout << fmt::format(
      "# each CPU alone (thread CPU time): its FMA peak, and one sparse product, {} synthetic digits times "
      "a {}-{} layer's Wᵀ (an L1 load for each FMA, as the first layer's forward; median of {} samples)\n",
      bench::kSparseProbeRows, bench::kSparseProbeDepth, bench::kSparseProbeWidth, bench::kSparseProbeSamples);
  if (at_once) {
    std::cout << "# at once: the same product on every CPU at the same time, each its own (wall time; in some "
                 "minutes a virtual machine's CPUs cannot all keep their pace)\n";
  }
  std::cout << fmt::format("cpu        FMA peak   sparse product{}\n", at_once ? "        at once" : "");
  for (const bench::CpuSpeed& s : speeds) {
    const double slower = s.sparse_product_us / fastest;
    const std::string fma = s.fma_gflops ? fmt::format("{:.1f} GFLOPS", *s.fma_gflops) : "-";
    const std::string together =
        s.sparse_product_at_once_us ? fmt::format(" {:>11.1f} us", *s.sparse_product_at_once_us) : "";
    std::cout << fmt::format("{:<4} {:>15} {:>11.1f} us{}{}\n", s.cpu, fma, s.sparse_product_us, together,
                             slower >= 1.005 ? fmt::format("  {:.2f}x the fastest alone", slower) : "");
  }
}

int run_cpus_bench_command(bool json) {
  const std::vector<bench::CpuPair> pairs = bench::distances_from_first();
  const std::vector<bench::CpuSpeed> speeds = bench::allowed_cpu_speeds();
  if (json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const bench::CpuPair& p : pairs) rows.push_back({{"cpus", {p.a, p.b}}, {"round_trip_ns", p.round_trip_ns}});
    nlohmann::json alone = nlohmann::json::array();
    for (const bench::CpuSpeed& s : speeds) {
      alone.push_back(
          {{"cpu", s.cpu},
           {"fma_gflops", s.fma_gflops ? nlohmann::json(*s.fma_gflops) : nlohmann::json()},
           {"sparse_product_us", s.sparse_product_us},
           {"sparse_product_at_once_us",
            s.sparse_product_at_once_us ? nlohmann::json(*s.sparse_product_at_once_us) : nlohmann::json()}});
    }
    print_json({{"cpu", bench::this_cpu()}, {"pairs", rows}, {"speeds", alone}});
    return 0;
  }
  print_cpu(bench::this_cpu());
  if (pairs.empty()) {
    std::cout << "# one CPU usable: no pair to measure\n";
  } else {
    std::cout << fmt::format(
        "# a cache line from one CPU to the other and back (median of {} runs of {} round trips)\n",
        bench::kRoundTripRuns, bench::kRoundTripsPerRun);
    std::cout << "cpus        round trip\n";
    for (const bench::CpuPair& p : pairs) {
      std::cout << fmt::format("{:<10} {:>8.0f} ns\n", fmt::format("{}-{}", p.a, p.b), p.round_trip_ns);
    }
  }
  print_speeds(speeds);
  return 0;
}

}  // namespace

Command register_cpus_bench(CLI::App& bench) {
  auto json = std::make_shared<bool>(false);
  CLI::App* app = bench.add_subcommand(
      "cpus", "How far apart the CPUs are (a cache line's round trip between the first and each other one), "
              "and how fast each is alone and with all of them at once");
  app->add_flag("--json", *json, "Print the results as one JSON object on stdout");
  Command command{app, {}};
  command.run = [json] { return run_cpus_bench_command(*json); };
  return command;
}

}  // namespace seatorch::cli
