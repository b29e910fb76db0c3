// `seatorch bench <mode>`: the command whose modes (bench_modes.hpp) parse their flags, call
// the library's benchmarks and report: `matmul` (kernel throughput against the FMA peak and
// the system BLAS), `train` (seconds per epoch with a breakdown, and the scalar engine beside
// the tensor engine), `int8` (float vs integer inference, images per second, in interleaved
// rounds) and `cpus` (how far apart the CPUs are, which two-thread figures depend on). Here:
// the command itself and what the modes share. Deliberately not here: each mode's flags and
// report (bench_<mode>.cpp).
#include "bench_modes.hpp"

#include <fmt/format.h>

#include <iostream>

namespace seatorch::cli {

CLI::Option* add_clock_option(CLI::App* app, std::string& clock, std::string_view note) {
  return app
      ->add_option("--clock", clock,
                   fmt::format("What is timed: the thread's CPU time (cpu: the code alone, even on a busy machine) or "
                               "wall time{}",
                               note))
      ->check(CLI::IsMember({"cpu", "wall"}))
      ->capture_default_str();
}

bench::TimingClock parse_clock(const std::string& clock) {
  return clock == "wall" ? bench::TimingClock::kWall : bench::TimingClock::kThreadCpu;
}
std::string shape_label(const bench::MatmulProblem& p) {
  return fmt::format("{}x{}x{}:{}", p.shape.m, p.shape.n, p.shape.k, bench::form_name(p));
}

void print_cpu(const std::string& cpu) { std::cout << "# measured on " << cpu << '\n'; }

void print_cpu_distance(const std::optional<bench::CpuPlacement>& cpus, const std::string& during) {
  if (!cpus) return;
  std::cout << fmt::format(
      "# CPUs {} and {}: a cache line's round trip {:.0f} ns before {}, {:.0f} ns after; the sparse product (bench "
      "cpus) alone {:.1f} and {:.1f} us before, {:.1f} and {:.1f} us after; on both at once {:.1f} and {:.1f} us "
      "before, {:.1f} and {:.1f} us after\n",
      cpus->a, cpus->b, cpus->before_ns, during, cpus->after_ns, cpus->sparse_before_us[0], cpus->sparse_before_us[1],
      cpus->sparse_after_us[0], cpus->sparse_after_us[1], cpus->sparse_at_once_before_us[0],
      cpus->sparse_at_once_before_us[1], cpus->sparse_at_once_after_us[0], cpus->sparse_at_once_after_us[1]);
}

nlohmann::json cpu_distance_json(const std::optional<bench::CpuPlacement>& cpus) {
  if (!cpus) return nullptr;
  return {{"cpus", {cpus->a, cpus->b}}, {"before", cpus->before_ns}, {"after", cpus->after_ns}};
}

nlohmann::json cpu_speed_json(const std::optional<bench::CpuPlacement>& cpus) {
  if (!cpus) return nullptr;
  return {{"cpus", {cpus->a, cpus->b}},
          {"before", cpus->sparse_before_us},
          {"after", cpus->sparse_after_us},
          {"at_once_before", cpus->sparse_at_once_before_us},
          {"at_once_after", cpus->sparse_at_once_after_us}};
}

Command register_bench(CLI::App& root) {
  CLI::App* app = root.add_subcommand("bench", "Benchmark the kernels against their references");
  app->require_subcommand(1);
  // No run of its own: main.cpp runs the parsed mode (parsed_command).
  return Command{
      app,
      {},
      {register_matmul_bench(*app), register_train_bench(*app), register_int8_bench(*app), register_cpus_bench(*app)}};
}

}  // namespace seatorch::cli
