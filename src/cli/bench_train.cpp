// `seatorch bench train`: its flags, the epoch with its breakdown and its products, the
// scalar engine beside it, and its JSON. Deliberately not here: any training or timing
// (bench/train_bench.hpp).
#include "bench_modes.hpp"

#include "seatorch/bench/train_bench.hpp"
#include "seatorch/nn/mlp.hpp"

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

struct TrainBenchFlags {
  bench::TrainBenchOptions options;
  std::string data_dir;
  std::size_t threads = 0;  // 0: SEATORCH_THREADS, else 1
  bool json = false;
  bool no_augmentation = false;  // a plain flag: CLI11's negated one shows as "--no-augmentation{false}"
};

// "90.1 GFLOPS, 77.4 % of the FMA peak"
std::string rate_text(double flops, double seconds, const std::optional<bench::FmaPeak>& peak) {
  const double gflops = seconds > 0.0 ? flops / seconds / 1e9 : 0.0;
  return fmt::format("{:.1f} GFLOPS{}", gflops,
                     peak ? fmt::format(", {:.1f} % of the FMA peak", 100.0 * gflops / peak->gflops) : std::string());
}

// "products: 24.4 GFLOP per epoch, 90.1 GFLOPS, 77.4 % of the FMA peak", and where sparse
// products left out the zeros' multiply-adds, "products: 9.9 GFLOP done per epoch (24.4 GFLOP
// as dense products), ..."
std::string products_line(double flops, double dense_flops, double seconds, const std::optional<bench::FmaPeak>& peak) {
  const std::string dense = flops < dense_flops
                                ? fmt::format(" done per epoch ({:.1f} GFLOP as dense products)", dense_flops / 1e9)
                                : std::string(" per epoch");
  return fmt::format("products: {:.1f} GFLOP{}, {}", flops / 1e9, dense, rate_text(flops, seconds, peak));
}

// What a product does besides C = op(A) op(B): "sparse" (A's zeros left out), "+=", "bias",
// "relu", "update" (C consumed by the optimizer's update, whose time it includes), comma-
// separated, or nothing.
std::string epilogue_label(const kernels::ProductKind& kind) {
  std::string label = kind.sparse ? "sparse" : "";
  if (kind.accumulate) label += label.empty() ? "+=" : ", +=";
  if (kind.bias) label += label.empty() ? "bias" : ", bias";
  if (kind.relu) label += label.empty() ? "relu" : ", relu";
  if (kind.update) label += label.empty() ? "update" : ", update";
  return label;
}

// The product as `bench matmul --shapes` names it.
std::string kind_label(const kernels::ProductKind& kind) { return shape_label({kind.shape, kind.ta, kind.tb}); }

double gflops_of(const bench::EpochProduct& p) { return p.seconds > 0.0 ? p.flops / p.seconds / 1e9 : 0.0; }

nlohmann::json products_json(const std::vector<bench::EpochProduct>& products) {
  nlohmann::json rows = nlohmann::json::array();
  for (const bench::EpochProduct& p : products) {
    const kernels::ProductKind& kind = p.kind;
    rows.push_back({{"shape", kind_label(kind)},
                    {"m", kind.shape.m},
                    {"n", kind.shape.n},
                    {"k", kind.shape.k},
                    {"form", bench::form_name({kind.shape, kind.ta, kind.tb})},
                    {"accumulate", kind.accumulate},
                    {"bias", kind.bias},
                    {"relu", kind.relu},
                    {"sparse", kind.sparse},
                    {"update", kind.update},
                    {"calls_per_epoch", p.calls},
                    {"seconds_per_epoch", p.seconds},
                    {"flops_per_epoch", p.flops},
                    {"gflops", gflops_of(p)}});
  }
  return rows;
}

nlohmann::json augment_json(const std::optional<bench::AugmentBench>& a) {
  if (!a) return nullptr;
  return {{"architecture", a->architecture},
          {"optimizer", a->optimizer},
          {"batch", a->batch},
          {"augment", a->augment},
          {"augment_seconds", a->augment_seconds},
          {"rest_seconds", a->rest_seconds},
          {"product_flops", a->product_flops},
          {"dense_product_flops", a->dense_product_flops},
          {"product_seconds", a->product_seconds},
          {"products", products_json(a->products)},
          {"share", a->share()}};
}

// One line per kind of product, the most time first (as `products` come). Kinds run less than
// half as often as the one that takes the most time, a product of every step, share one line:
// those of an epoch's last, short batch.
void print_product_kinds(const std::vector<bench::EpochProduct>& products, const std::optional<bench::FmaPeak>& peak) {
  auto share = [&peak](double gflops) {
    return peak ? fmt::format("  {:5.1f} %", 100.0 * gflops / peak->gflops) : std::string();
  };
  const double step_calls = products.empty() ? 0.0 : products.front().calls;
  std::size_t small_kinds = 0;
  double small_seconds = 0.0;
  for (const bench::EpochProduct& p : products) {
    if (2.0 * p.calls < step_calls) {
      ++small_kinds;
      small_seconds += p.seconds;
      continue;
    }
    std::cout << fmt::format("    {:<18} {:<18} {:6.0f} calls  {:.4f} s  {:6.1f} GFLOPS{}\n", kind_label(p.kind),
                             epilogue_label(p.kind), p.calls, p.seconds, gflops_of(p), share(gflops_of(p)));
  }
  if (small_kinds > 0) {
    std::cout << fmt::format("    and {} kind{} of product run less often (a short last batch), {:.4f} s in all\n",
                             small_kinds, small_kinds == 1 ? "" : "s", small_seconds);
  }
}

// The epoch's products: a line of their total against the rest, then one kind a line.
void print_epoch_products(const bench::TrainBenchReport& r) {
  std::cout << fmt::format("  each product timed as training ran it (wall, mean per epoch): {:.3f} s, {}; forward "
                           "and backward outside them {:.3f} s\n",
                           r.product_seconds, rate_text(r.product_flops, r.product_seconds, r.peak),
                           r.outside_products);
  print_product_kinds(r.products, r.peak);
}

int run_train_bench_command(TrainBenchFlags flags) {
  use_threads(flags.threads);
  flags.options.data_dir = flags.data_dir;
  flags.options.augmentation = !flags.no_augmentation;
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
                {"cpu_round_trip_ns", cpu_distance_json(r.cpus)},
                {"cpu_sparse_product_us", cpu_speed_json(r.cpus)},
                {"product_flops_per_epoch", r.product_flops},
                {"dense_product_flops_per_epoch", r.dense_product_flops},
                {"breakdown_seconds",
                 {{"data", p.data},
                  {"forward", p.forward},
                  {"backward", p.backward},
                  {"optimizer", p.optimizer},
                  {"evaluation", r.evaluation_per_epoch}}},
                {"products", products_json(r.products)},
                {"product_seconds_per_epoch", r.product_seconds},
                {"outside_products_seconds_per_epoch", r.outside_products},
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
  std::cout << fmt::format(
      "# {} on {}, --batch {} --opt {} --momentum {}, {} thread{}, matmul kernel {}; FMA peak {}\n", r.architecture,
      r.dataset, r.batch, r.optimizer, r.momentum, r.threads, r.threads == 1 ? "" : "s", r.kernel,
      r.peak ? fmt::format("{:.1f} GFLOPS ({})", r.peak->gflops, r.peak->isa)
             : std::string("not measured (no SIMD ISA)"));
  print_cpu_distance(r.cpus, "the epochs");
  const auto [fastest, slowest] = std::minmax_element(r.epoch_seconds.begin(), r.epoch_seconds.end());
  const std::string spread = r.epoch_seconds.size() < 2 ? std::string()
                                                        : fmt::format("median of {} epochs, {:.3f}-{:.3f} s; ",
                                                                      r.epoch_seconds.size(), *fastest, *slowest);
  std::cout << fmt::format("tensor engine: {:.3f} s/epoch ({}{} samples), {:.2f} us/sample, test accuracy {:.4f}\n",
                           r.seconds_per_epoch, spread, r.train_size, r.tensor_us_per_sample, r.test_accuracy);
  std::cout << fmt::format(
      "  breakdown, mean per epoch: data {:.3f} s, forward {:.3f} s, backward {:.3f} s (with the first layer's "
      "update), optimizer {:.3f} s; then evaluation {:.3f} s (the {} test images, not in the epoch time)\n",
      p.data, p.forward, p.backward, p.optimizer, r.evaluation_per_epoch, r.test_size);
  std::cout << fmt::format("  {}\n",
                           products_line(r.product_flops, r.dense_product_flops, r.seconds_per_epoch, r.peak));
  print_epoch_products(r);
  std::cout << fmt::format("scalar engine: {:.1f} us/sample on {} samples ({:.0f} graph nodes/sample)\n",
                           r.scalar_us_per_sample, r.scalar_samples, r.scalar_nodes_per_sample);
  std::cout << fmt::format("scalar / tensor: {:.0f}x slower per sample\n", r.scalar_to_tensor);
  if (r.augmentation) {
    const bench::AugmentBench& a = *r.augmentation;
    std::cout << fmt::format("augmentation ({}): {:.3f} s per epoch, {:.1f} % of the {} default epoch's {:.3f} s\n",
                             a.augment, a.augment_seconds, 100.0 * a.share(), a.architecture, a.rest_seconds);
    if (r.threads > 1) {
      std::cout << "  (on more than one thread: the images left when each step began; those the threads "
                   "transformed while waiting in the step before count in the rest)\n";
    }
    std::cout << fmt::format("  that epoch without augmentation (--opt {} --batch {}): {}; the products alone "
                             "{:.3f} s, {}\n",
                             a.optimizer, a.batch,
                             products_line(a.product_flops, a.dense_product_flops, a.rest_seconds, r.peak),
                             a.product_seconds, rate_text(a.product_flops, a.product_seconds, r.peak));
    print_product_kinds(a.products, r.peak);
  }
  std::cout << fmt::format("peak memory (loading MNIST and training): {:.1f} MiB\n",
                           static_cast<double>(r.peak_rss_bytes) / (1024.0 * 1024.0));
  return 0;
}

}  // namespace

Command register_train_bench(CLI::App& bench) {
  auto f = std::make_shared<TrainBenchFlags>();
  CLI::App* app = bench.add_subcommand("train", "Seconds per MNIST epoch (with a breakdown), scalar vs tensor engine");
  Command command{app, {}};
  command
      .sets("hidden widths", add_counts(app, "--hidden", f->options.hidden, "Hidden-layer widths, comma-separated", 1,
                                        nn::kMaxHiddenWidth))
      ->capture_default_str();
  command.sets("batch size", add_count(app, "--batch", f->options.batch, "Samples per step", 1))->capture_default_str();
  command.sets("epochs", add_count(app, "--epochs", f->options.epochs, "Epochs of the tensor engine", 1))
      ->capture_default_str();
  add_count(app, "--scalar-samples", f->options.scalar_samples, "Samples for the scalar engine", 1)
      ->capture_default_str();
  command.sets("data directory", app->add_option("--data-dir", f->data_dir, "Directory of the MNIST files"));
  add_count(app, "--seed", f->options.seed, "Seed")->capture_default_str();
  add_threads(command, app, f->threads, kTrainingThreadWork);
  app->add_flag("--json", f->json, "Print the results as one JSON object on stdout");
  app->add_flag("--no-augmentation", f->no_augmentation,
                "Skip the augmentation line (one epoch of the default model with the best recipe's transforms)");
  command.run = [f] { return run_train_bench_command(*f); };
  return command;
}

}  // namespace seatorch::cli
