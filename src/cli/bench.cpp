// `seatorch bench <mode>`: parses the bench flags, calls the library's benchmarks, reports.
// Modes: `matmul` (kernel throughput against the FMA peak and the system BLAS), `train`
// (seconds per epoch with a breakdown, and the scalar engine beside the tensor engine) and
// `int8` (float vs integer inference, images per second, in interleaved rounds). Each mode
// registers itself below as a sub-subcommand with its own flags and run function.
#include "command.hpp"

#include "seatorch/bench/blas_core.hpp"
#include "seatorch/bench/blas_reference.hpp"
#include "seatorch/bench/int8_bench.hpp"
#include "seatorch/bench/matmul_bench.hpp"
#include "seatorch/bench/train_bench.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/kernels/matmul.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
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

// --clock, shared by the modes that time single-threaded work.
CLI::Option* add_clock_option(CLI::App* app, std::string& clock) {
  return app
      ->add_option("--clock", clock,
                   "What is timed: the thread's CPU time (cpu: the code alone, even on a busy machine) or wall time")
      ->check(CLI::IsMember({"cpu", "wall"}))
      ->capture_default_str();
}

bench::TimingClock parse_clock(const std::string& clock) {
  return clock == "wall" ? bench::TimingClock::kWall : bench::TimingClock::kThreadCpu;
}

// ---- bench matmul -----------------------------------------------------------

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

std::string shape_label(const bench::MatmulProblem& p) {
  return fmt::format("{}x{}x{}:{}", p.shape.m, p.shape.n, p.shape.k, bench::form_name(p));
}

std::string optional_number(const std::optional<double>& x, int width, int precision) {
  return x ? fmt::format("{:>{}.{}f}", *x, width, precision) : fmt::format("{:>{}}", "-", width);
}

// The first header line of every mode: the machine its figures belong to.
void print_cpu(const std::string& cpu) { std::cout << "# measured on " << cpu << '\n'; }

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
          {"reps", flags.reps}};
}

int run_matmul(const MatmulFlags& flags) {
  // Before anything is measured: a BLAS on a core below this CPU's ISA is re-run on the right one.
  std::string blas_note;
  bench::prefer_fitting_blas(blas_note);
  if (!blas_note.empty()) spdlog::warn("{}", blas_note);
  use_threads(flags.threads);
  bench::MatmulBenchOptions options;
  options.reps = flags.reps;
  // Several threads are timed by the wall clock unless --clock says otherwise (then refused).
  const bool wall = core::threads() > 1 && flags.clock_opt->count() == 0;
  options.clock = wall ? bench::TimingClock::kWall : parse_clock(flags.clock);
  bench::check_clock(options.clock);
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

Command register_matmul(CLI::App& bench) {
  auto flags = std::make_shared<MatmulFlags>();
  CLI::App* app = bench.add_subcommand("matmul", "Matmul GFLOPS of every kernel vs the FMA peak and BLAS");
  Command command{app, {}};
  flags->sizes_opt =
      add_counts(app, "--sizes", flags->sizes, "Square sizes, comma-separated (default 64,128,256,512,1024)", 1);
  flags->shapes_opt =
      command
          .sets("matmul shapes",
                app->add_option("--shapes", flags->shapes,
                                "Shapes MxNxK[:FORM], FORM nn|tn|nt|tt, comma-separated (default: the MLP's products)"))
          ->delimiter(',')
          ->check(library_validator([](const std::string& t) { bench::parse_matmul_problem(t); }, "SHAPE"));
  add_count(app, "--reps", flags->reps,
            "Timed samples per figure, taken in turn across the engines (the median is reported)", 1)
      ->capture_default_str();
  flags->clock_opt = command.sets("clock", add_clock_option(app, flags->clock));
  add_threads(command, app, flags->threads);
  command
      .sets("matmul kernel",
            app->add_option("--kernel", flags->kernels, "Kernels to run, comma-separated (default: all on this CPU)"))
      ->delimiter(',')
      ->check(library_validator([](const std::string& t) { kernels::require_kernel(t, ""); }, "KERNEL"));
  app->add_flag("--json", flags->json, "Print the results as one JSON object on stdout");
  command.run = [flags] { return run_matmul(*flags); };
  return command;
}


// ---- bench train --------------------------------------------------------------

struct TrainBenchFlags {
  bench::TrainBenchOptions options;
  std::string data_dir;
  std::size_t threads = 0;  // 0: SEATORCH_THREADS, else 1
  bool json = false;
};

nlohmann::json augment_json(const std::optional<bench::AugmentBench>& a) {
  if (!a) return nullptr;
  return {{"architecture", a->architecture},       {"augment", a->augment},
          {"augment_seconds", a->augment_seconds}, {"rest_seconds", a->rest_seconds},
          {"product_flops", a->product_flops},     {"share", a->share()}};
}

// "products: 24.4 GFLOP per epoch, 90.1 GFLOPS, 77.4 % of the FMA peak"
std::string products_line(double flops, double seconds, const std::optional<bench::FmaPeak>& peak) {
  const double gflops = seconds > 0.0 ? flops / seconds / 1e9 : 0.0;
  return fmt::format("products: {:.1f} GFLOP per epoch, {:.1f} GFLOPS{}", flops / 1e9, gflops,
                     peak ? fmt::format(", {:.1f} % of the FMA peak", 100.0 * gflops / peak->gflops) : std::string());
}

int run_train_bench_command(TrainBenchFlags flags) {
  use_threads(flags.threads);
  flags.options.data_dir = flags.data_dir;
  spdlog::info("training {} epoch(s) of MNIST with the tensor engine, then {} samples with the scalar engine",
               flags.options.epochs, flags.options.scalar_samples);
  const bench::TrainBenchReport r = bench::run_train_bench(flags.options);
  const train::PhaseSeconds& p = r.phases_per_epoch;
  if (flags.json) {
    print_json({{"cpu", r.cpu},
                {"dataset", r.dataset},
                {"architecture", r.architecture},
                {"kernel", r.kernel},
                {"batch", r.batch},
                {"epochs", r.epochs},
                {"train_size", r.train_size},
                {"test_size", r.test_size},
                {"seconds_per_epoch", r.seconds_per_epoch},
                {"epoch_seconds", r.epoch_seconds},
                {"threads", r.threads},
                {"peak_gflops", r.peak ? nlohmann::json(r.peak->gflops) : nlohmann::json()},
                {"product_flops_per_epoch", r.product_flops},
                {"breakdown_seconds",
                 {{"data", p.data},
                  {"forward", p.forward},
                  {"backward", p.backward},
                  {"optimizer", p.optimizer},
                  {"evaluation", r.evaluation_per_epoch}}},
                {"tensor_us_per_sample", r.tensor_us_per_sample},
                {"test_accuracy", r.test_accuracy},
                {"scalar_samples", r.scalar_samples},
                {"scalar_us_per_sample", r.scalar_us_per_sample},
                {"scalar_nodes_per_sample", r.scalar_nodes_per_sample},
                {"scalar_to_tensor", r.scalar_to_tensor},
                {"peak_rss_bytes", r.peak_rss_bytes},
                {"augmentation", augment_json(r.augmentation)}});
    return 0;
  }
  print_cpu(r.cpu);
  std::cout << fmt::format("# {} on {}, batch {}, SGD momentum 0.9, {} thread{}, matmul kernel {}; FMA peak {}\n",
                           r.architecture, r.dataset, r.batch, r.threads, r.threads == 1 ? "" : "s", r.kernel,
                           r.peak ? fmt::format("{:.1f} GFLOPS ({})", r.peak->gflops, r.peak->isa)
                                  : std::string("not measured (no SIMD ISA)"));
  const auto [fastest, slowest] = std::minmax_element(r.epoch_seconds.begin(), r.epoch_seconds.end());
  const std::string spread = r.epoch_seconds.size() < 2 ? std::string()
                                                        : fmt::format("median of {} epochs, {:.3f}-{:.3f} s; ",
                                                                      r.epoch_seconds.size(), *fastest, *slowest);
  std::cout << fmt::format("tensor engine: {:.3f} s/epoch ({}{} samples), {:.2f} us/sample, test accuracy {:.4f}\n",
                           r.seconds_per_epoch, spread, r.train_size, r.tensor_us_per_sample, r.test_accuracy);
  std::cout << fmt::format(
      "  breakdown, mean per epoch: data {:.3f} s, forward {:.3f} s, backward {:.3f} s, optimizer {:.3f} s; then "
      "evaluation {:.3f} s (the {} test images, not in the epoch time)\n",
      p.data, p.forward, p.backward, p.optimizer, r.evaluation_per_epoch, r.test_size);
  std::cout << fmt::format("  {}\n", products_line(r.product_flops, r.seconds_per_epoch, r.peak));
  std::cout << fmt::format("scalar engine: {:.1f} us/sample on {} samples ({:.0f} graph nodes/sample)\n",
                           r.scalar_us_per_sample, r.scalar_samples, r.scalar_nodes_per_sample);
  std::cout << fmt::format("scalar / tensor: {:.0f}x slower per sample\n", r.scalar_to_tensor);
  if (r.augmentation) {
    const bench::AugmentBench& a = *r.augmentation;
    std::cout << fmt::format("augmentation ({}): {:.3f} s per epoch, {:.1f} % of the {} default epoch's {:.3f} s\n",
                             a.augment, a.augment_seconds, 100.0 * a.share(), a.architecture, a.rest_seconds);
    std::cout << fmt::format("  that epoch without augmentation (Adam, batch 128): {}\n",
                             products_line(a.product_flops, a.rest_seconds, r.peak));
  }
  std::cout << fmt::format("peak memory (loading MNIST and training): {:.1f} MiB\n",
                           static_cast<double>(r.peak_rss_bytes) / (1024.0 * 1024.0));
  return 0;
}

Command register_train_bench(CLI::App& bench) {
  auto f = std::make_shared<TrainBenchFlags>();
  CLI::App* app = bench.add_subcommand("train", "Seconds per MNIST epoch (with a breakdown), scalar vs tensor engine");
  Command command{app, {}};
  command
      .sets("hidden widths", add_counts(app, "--hidden", f->options.hidden, "Hidden-layer widths, comma-separated", 1))
      ->capture_default_str();
  command.sets("batch size", add_count(app, "--batch", f->options.batch, "Samples per step", 1))->capture_default_str();
  command.sets("epochs", add_count(app, "--epochs", f->options.epochs, "Epochs of the tensor engine", 1))
      ->capture_default_str();
  add_count(app, "--scalar-samples", f->options.scalar_samples, "Samples for the scalar engine", 1)
      ->capture_default_str();
  command.sets("data directory", app->add_option("--data-dir", f->data_dir, "Directory of the MNIST files"));
  add_count(app, "--seed", f->options.seed, "Seed")->capture_default_str();
  add_threads(command, app, f->threads);
  app->add_flag("--json", f->json, "Print the results as one JSON object on stdout");
  app->add_flag("!--no-augmentation", f->options.augmentation,
                "Skip the augmentation line (one epoch of the default model with the best recipe's transforms)");
  command.run = [f] { return run_train_bench_command(*f); };
  return command;
}

// ---- bench int8 ---------------------------------------------------------------

struct Int8BenchFlags {
  bench::Int8BenchOptions options;
  std::string float_model = "seatorch-out/model.safetensors";
  std::string int8_model = "seatorch-out/model.int8.safetensors";
  std::string dataset;
  std::string data_dir;
  std::string clock = "cpu";
  bool json = false;
};

int run_int8_bench_command(Int8BenchFlags f) {
  f.options.float_model = f.float_model;
  f.options.int8_model = f.int8_model;
  f.options.data.name = f.dataset;
  f.options.data.data_dir = f.data_dir;
  f.options.clock = parse_clock(f.clock);
  const bench::Int8BenchReport r = bench::run_int8_bench(f.options);
  if (f.json) {
    nlohmann::json paths = nlohmann::json::array();
    for (std::size_t i = 0; i < r.paths.size(); ++i) {
      const quant::Throughput& t = r.paths[i];
      nlohmann::json path{{"path", t.path}, {"images_per_second", t.images_per_second()}};
      if (const std::optional<bench::PathCeiling>& c = r.ceilings[i]) {
        path["ceiling"] = {
            {"probe", c->probe}, {"peak", c->peak}, {"unit", c->unit}, {"images_per_second", c->images_per_second}};
        path["pct_of_ceiling"] = c->percent_of(t.images_per_second());
      }
      paths.push_back(path);
    }
    print_json({{"cpu", r.cpu},
                {"dataset", r.dataset},
                {"architecture", r.architecture},
                {"images", r.images},
                {"multiply_adds_per_image", r.multiply_adds},
                {"results", paths},
                {"best_int8_speedup", r.best_int8_speedup},
                {"clock", bench::clock_name(r.clock)},
                {"reps", r.reps}});
    return 0;
  }
  print_cpu(r.cpu);
  std::cout << fmt::format("# {} inference on {} {} test images, 1 thread, median of {} interleaved passes ({} time)\n",
                           r.architecture, r.images, r.dataset, r.reps,
                           r.clock == bench::TimingClock::kWall ? "wall" : "thread CPU");
  const double float_rate = r.paths.front().images_per_second();
  for (std::size_t i = 0; i < r.paths.size(); ++i) {
    const quant::Throughput& t = r.paths[i];
    std::string line = fmt::format("{:<18} {:>12.0f} images/s  {:>6.2f}x float", t.path, t.images_per_second(),
                                   t.images_per_second() / float_rate);
    if (const std::optional<bench::PathCeiling>& c = r.ceilings[i]) {
      line += fmt::format("  {:>5.1f} % of its ceiling {:.0f} ({} peak {:.1f} G {})",
                          c->percent_of(t.images_per_second()), c->images_per_second, c->probe, c->peak / 1e9, c->unit);
    }
    std::cout << line << "\n";
  }
  std::cout << fmt::format("# ceiling: the path's multiply instruction at its peak (its probe, in registers, this run) "
                           "over the model's {} multiply-adds per image\n",
                           r.multiply_adds);
  return 0;
}

Command register_int8_bench(CLI::App& bench) {
  auto f = std::make_shared<Int8BenchFlags>();
  CLI::App* app = bench.add_subcommand("int8", "Images per second: float vs INT8 inference on every int8 kernel");
  Command command{app, {}};
  command.sets("float model", app->add_option("--float-model", f->float_model, "Float checkpoint"))
      ->capture_default_str();
  app->add_option("--model", f->int8_model, "INT8 model quantized from it")->capture_default_str();
  command
      .sets("data set",
            app->add_option("--dataset", f->dataset, "Data set (default: the one recorded in the INT8 model)"))
      ->check(CLI::IsMember(data::dataset_names()));
  command.sets("data directory", app->add_option("--data-dir", f->data_dir, "Directory of the data set's files"));
  add_count(app, "--images", f->options.images, "Test images to run", 1)->capture_default_str();
  add_count(app, "--reps", f->options.reps, "Timed passes per path, the paths in turn (the median is reported)", 1)
      ->capture_default_str();
  add_clock_option(app, f->clock);
  app->add_flag("--json", f->json, "Print the results as one JSON object on stdout");
  command.run = [f] { return run_int8_bench_command(*f); };
  return command;
}

}  // namespace

Command register_bench(CLI::App& root) {
  CLI::App* app = root.add_subcommand("bench", "Benchmark the kernels against their references");
  app->require_subcommand(1);
  // No run of its own: main.cpp runs the parsed mode (parsed_command).
  return Command{app, {}, {register_matmul(*app), register_train_bench(*app), register_int8_bench(*app)}};
}

}  // namespace seatorch::cli
