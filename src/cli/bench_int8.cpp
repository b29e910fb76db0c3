// `seatorch bench int8`: its flags, images per second of the float and every int8 path
// against its ceiling, and its JSON. Deliberately not here: any inference or timing
// (bench/int8_bench.hpp).
#include "bench_modes.hpp"

#include "seatorch/bench/int8_bench.hpp"
#include "seatorch/data/registry.hpp"
#include "seatorch/kernels/int8_kernels.hpp"
#include "seatorch/kernels/sparse_matmul.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

namespace seatorch::cli {
namespace {

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
  std::cout << fmt::format(
      "# float's first layer skips the zero pixels' multiply-adds where at most {:.0f} % of a batch's pixels are lit "
      "(MNIST's digits; DECISIONS 65), and the x86 int8 kernels the groups of 4 inputs all zero in a tile's rows "
      "where at most {} % of a layer's are lit (DECISIONS 66, 67): their % is then over more than they do and can "
      "pass 100 %\n",
      100.0 * kernels::kSparseDensity, kernels::kLitGroupsPercent);
  return 0;
}

}  // namespace

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

}  // namespace seatorch::cli
