// `seatorch bench matmul`: its flags, the table of every kernel and the BLAS against the FMA
// peak, and its JSON. The measuring is bench/matmul_bench.hpp's.
#include "bench_modes.hpp"

#include "seatorch/bench/blas_core.hpp"
#include "seatorch/bench/blas_reference.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/kernels/matmul.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace seatorch::cli {
namespace {

// A CLI11 validator that runs a library parser and reports its InputError message.
template <typename Parse>
CLI::Validator library_validator(Parse parse, std::string name) {
  return CLI::Validator(
      [parse](const std::string& text) -> std::string {
        try {
          parse(text);
        } catch (const core::InputError& e) {
          return e.what();
        }
        return {};
      },
      std::move(name));
}

struct MatmulFlags {
  std::vector<std::size_t> sizes;
  std::vector<std::string> shapes;
  std::vector<std::string> kernels;
  std::size_t reps = 5;
  std::string clock = "cpu";
  std::size_t threads = 0;  // 0: SEATORCH_THREADS, else 1
  bool json = false;
  CLI::Option* clock_opt = nullptr;
  CLI::Option* sizes_opt = nullptr;
  CLI::Option* shapes_opt = nullptr;
};

std::string optional_number(const std::optional<double>& x, int width, int precision) {
  return x ? fmt::format("{:>{}.{}f}", *x, width, precision) : fmt::format("{:>{}}", "-", width);
}

// One line per problem: GFLOPS of every kernel and the BLAS, then the fastest kernel with its
// share of the peak and its ratio to the BLAS.
void print_matmul_table(const bench::MatmulBenchReport& report) {
  std::vector<std::string> columns;  // kernel names in the order measured
  for (const auto& row : report.rows) {
    if (std::find(columns.begin(), columns.end(), row.kernel) == columns.end()) columns.push_back(row.kernel);
  }
  print_cpu(report.cpu);
  std::cout << fmt::format("# matmul, {} thread{}, GFLOPS (median, {} time); FMA peak {}; BLAS: {}\n", report.threads,
                           report.threads == 1 ? "" : "s",
                           report.clock == bench::TimingClock::kWall ? "wall" : "thread CPU",
                           report.peak ? fmt::format("{:.1f} GFLOPS ({})", report.peak->gflops, report.peak->isa)
                                       : std::string("not measured (no SIMD ISA)"),
                           report.blas.empty() ? bench::blas_missing_reason() : report.blas);
  if (const std::string from = bench::blas_rerun_from(); !from.empty()) {
    std::cout << fmt::format("# BLAS: OpenBLAS chose its {} kernels for this CPU; this run set OPENBLAS_CORETYPE={}\n",
                             from, std::getenv("OPENBLAS_CORETYPE"));
  }
  if (!report.blas_unfair.empty()) std::cout << "# x blas: " << report.blas_unfair << '\n';
  print_cpu_distance(report.cpus, "the products");
  std::cout << fmt::format("{:<18}", "shape:form");
  for (const auto& name : columns) std::cout << fmt::format(" {:>8}", name);
  std::cout << fmt::format(" {:>8} {:>7} {:>7}\n", "best", "% peak", "x blas");

  for (std::size_t first = 0; first < report.rows.size();) {
    std::size_t last = first;
    const std::string label = shape_label(report.rows[first].problem);
    while (last < report.rows.size() && shape_label(report.rows[last].problem) == label) ++last;
    std::cout << fmt::format("{:<18}", label);
    const bench::MatmulBenchRow* best = nullptr;
    for (const auto& name : columns) {
      const bench::MatmulBenchRow* cell = nullptr;
      for (std::size_t r = first; r < last; ++r) {
        if (report.rows[r].kernel == name) cell = &report.rows[r];
      }
      std::cout << (cell ? fmt::format(" {:>8.2f}", cell->gflops) : fmt::format(" {:>8}", "-"));
      if (cell && cell->kernel != "blas" && (!best || cell->gflops > best->gflops)) best = cell;
    }
    if (best) {
      std::cout << fmt::format(" {:>8} {} {}\n", best->kernel, optional_number(best->pct_peak, 7, 1),
                               optional_number(best->ratio_to_blas, 7, 2));
    } else {
      std::cout << '\n';
    }
    first = last;
  }
  std::cout << std::flush;
}

nlohmann::json null_if_empty(const std::string& s) { return s.empty() ? nlohmann::json() : nlohmann::json(s); }

nlohmann::json matmul_json(const bench::MatmulBenchReport& report, const MatmulFlags& flags) {
  nlohmann::json results = nlohmann::json::array();
  for (const auto& row : report.rows) {
    nlohmann::json r{{"kernel", row.kernel},
                     {"m", row.problem.shape.m},
                     {"n", row.problem.shape.n},
                     {"k", row.problem.shape.k},
                     {"form", bench::form_name(row.problem)},
                     {"seconds", row.seconds},
                     {"gflops", row.gflops},
                     {"pct_peak", row.pct_peak ? nlohmann::json(*row.pct_peak) : nlohmann::json()}};
    if (row.ratio_to_blas) r["ratio_to_blas"] = *row.ratio_to_blas;
    results.push_back(std::move(r));
  }
  return {{"cpu", report.cpu},
          {"results", std::move(results)},
          {"peak_gflops", report.peak ? nlohmann::json(report.peak->gflops) : nlohmann::json()},
          {"peak_isa", report.peak ? nlohmann::json(report.peak->isa) : nlohmann::json()},
          {"blas", report.blas.empty() ? nlohmann::json() : nlohmann::json(report.blas)},
          {"blas_unfair", report.blas_unfair.empty() ? nlohmann::json() : nlohmann::json(report.blas_unfair)},
          {"blas_core", null_if_empty(bench::blas_core().name)},
          {"blas_rerun_from", null_if_empty(bench::blas_rerun_from())},
          {"clock", bench::clock_name(report.clock)},
          {"threads", report.threads},
          {"cpu_round_trip_ns", cpu_distance_json(report.cpus)},
          {"cpu_sparse_product_us", cpu_speed_json(report.cpus)},
          {"reps", flags.reps}};
}

int run_matmul(const MatmulFlags& flags) {
  use_threads(flags.threads);
  bench::MatmulBenchOptions options;
  options.reps = flags.reps;
  // Several threads are timed by the wall clock unless --clock says otherwise (then refused).
  const bool wall = core::threads() > 1 && flags.clock_opt->count() == 0;
  options.clock = wall ? bench::TimingClock::kWall : parse_clock(flags.clock);
  bench::check_clock(options.clock);
  // Once the flags are known good (a refused one is the only line printed), before anything
  // is measured: a BLAS on a core below this CPU's ISA is re-run on the right one.
  std::string blas_note;
  bench::prefer_fitting_blas(blas_note);
  if (!blas_note.empty()) spdlog::warn("{}", blas_note);
  options.kernels = flags.kernels;
  // With neither --sizes nor --shapes: the default squares and the MLP's shapes; otherwise
  // exactly what was asked for.
  const bool defaults = flags.sizes_opt->count() == 0 && flags.shapes_opt->count() == 0;
  options.problems = bench::square_matmul_problems(defaults ? bench::default_matmul_sizes() : flags.sizes);
  if (defaults) {
    const auto mlp = bench::mlp_matmul_problems();
    options.problems.insert(options.problems.end(), mlp.begin(), mlp.end());
  }
  for (const std::string& text : flags.shapes) options.problems.push_back(bench::parse_matmul_problem(text));

  spdlog::info("matmul bench: {} shapes, {} timed samples each, {} thread(s)", options.problems.size(), options.reps,
               core::threads());
  const bench::MatmulBenchReport report = bench::run_matmul_bench(options, [](const bench::MatmulBenchRow& row) {
    spdlog::info("{:<18} {:<8} {:8.2f} GFLOPS{}", shape_label(row.problem), row.kernel, row.gflops,
                 row.ratio_to_blas ? fmt::format("  {:.2f}x blas", *row.ratio_to_blas) : std::string());
  });
  if (flags.json) {
    print_json(matmul_json(report, flags));
  } else {
    print_matmul_table(report);
  }
  return 0;
}

}  // namespace

Command register_matmul_bench(CLI::App& bench) {
  auto flags = std::make_shared<MatmulFlags>();
  CLI::App* app = bench.add_subcommand("matmul", "Matmul GFLOPS of every kernel vs the FMA peak and BLAS");
  Command command{app, {}};
  flags->sizes_opt =
      add_counts(app, "--sizes", flags->sizes, "Square sizes, comma-separated (default 64,128,256,512,1024)", 1);
  flags->shapes_opt = command.sets(
      "matmul shapes",
      add_list(app, "--shapes", "Shapes MxNxK[:FORM], FORM nn|tn|nt|tt, comma-separated (default: the MLP's products)",
               "TEXT", library_validator([](const std::string& t) { bench::parse_matmul_problem(t); }, "SHAPE"),
               [flags](std::vector<std::string>&& shapes) { flags->shapes = std::move(shapes); }));
  add_count(app, "--reps", flags->reps,
            "Timed samples per figure, taken in turn across the engines (the median is reported)", 1)
      ->capture_default_str();
  flags->clock_opt = command.sets(
      "clock", add_clock_option(app, flags->clock, "; with more than one thread, wall unless given (cpu is refused)"));
  add_threads(command, app, flags->threads, "each product, and as many for OpenBLAS");
  command.sets("matmul kernel",
               add_list(app, "--kernel", "Kernels to run, comma-separated (default: all on this CPU)", "TEXT",
                        library_validator([](const std::string& t) { kernels::require_kernel(t, ""); }, "KERNEL"),
                        [flags](std::vector<std::string>&& kernels) { flags->kernels = std::move(kernels); }));
  app->add_flag("--json", flags->json, "Print the results as one JSON object on stdout");
  command.run = [flags] { return run_matmul(*flags); };
  return command;
}

}  // namespace seatorch::cli
