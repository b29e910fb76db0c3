// `bench int8` end to end on the committed MNIST subset: a float and an int8 model of the same
// shape written to files, and the report read against what it must say whatever the speeds:
// one path per int8 kernel after float, the model's multiply-adds counted by hand, each
// ceiling the probe's rate over those multiply-adds, each share and the best speed-up the
// ratios of the reported rates.
#include "seatorch/bench/int8_bench.hpp"

#include "../quant/random_models.hpp"
#include "../scratch_dir.hpp"
#include "seatorch/kernels/int8_kernels.hpp"
#include "seatorch/kernels/kernel_registry.hpp"
#include "seatorch/model/float_checkpoint.hpp"
#include "seatorch/quant/int8_file.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace b = seatorch::bench;
using namespace seatorch;

namespace {

// A float and an int8 784-24-10 model in `dir`, and options that bench 40 committed images.
b::Int8BenchOptions small_bench(const test::ScratchDir& dir) {
  core::Rng rng(11);
  const std::vector<std::size_t> sizes{784, 24, 10};
  model::save_float_checkpoint(dir.path() / "model.safetensors", test::random_float_mlp(sizes, rng));
  quant::save_int8_model(dir.path() / "model.int8.safetensors", test::random_int8_model(sizes, rng, false));
  b::Int8BenchOptions options;
  options.float_model = dir.path() / "model.safetensors";
  options.int8_model = dir.path() / "model.int8.safetensors";
  options.data.name = "mnist";
  options.data.data_dir = std::string(SEATORCH_SOURCE_DIR) + "/data/mnist-small";
  options.images = 40;
  options.reps = 1;
  return options;
}

}  // namespace

TEST_CASE("bench int8 reports every path with its ceiling from the model's multiply-adds", "[bench]") {
  const test::ScratchDir dir;
  const b::Int8BenchReport report = b::run_int8_bench(small_bench(dir));

  CHECK(report.dataset == "mnist");
  CHECK(report.architecture == "784-24-10");
  CHECK(report.images == 40);
  CHECK(report.multiply_adds == 784 * 24 + 24 * 10);

  std::vector<std::string> expected_paths{"float"};
  for (const std::string& kernel : kernels::int8_kernel_names()) expected_paths.push_back("int8 " + kernel);
  REQUIRE(report.paths.size() == expected_paths.size());
  REQUIRE(report.ceilings.size() == expected_paths.size());
  const double float_rate = report.paths.front().images_per_second();
  double best_ratio = 0.0;
  for (std::size_t i = 0; i < report.paths.size(); ++i) {
    const quant::Throughput& path = report.paths[i];
    INFO("path " << i << ": " << path.path);
    CHECK(path.path == expected_paths[i]);
    CHECK(path.images_per_second() > 0.0);
    if (i > 0) best_ratio = std::max(best_ratio, path.images_per_second() / float_rate);
    const auto& ceiling = report.ceilings[i];
    if (!ceiling) {
      CHECK(path.path == "int8 ref");  // the only path without a probe of its own
      continue;
    }
    // A multiply-add is two FLOPs on the float path, one u8 x s8 product on an int8 path.
    const bool is_float = i == 0;
    CHECK(ceiling->unit == (is_float ? "FLOP/s" : "products/s"));
    const double per_image = static_cast<double>(report.multiply_adds) * (is_float ? 2.0 : 1.0);
    CHECK(ceiling->images_per_second == Approx(ceiling->peak / per_image).epsilon(1e-12));
    CHECK(ceiling->percent_of(path.images_per_second()) ==
          Approx(100.0 * path.images_per_second() / ceiling->images_per_second).epsilon(1e-12));
    CHECK(ceiling->probe.find(is_float ? "FMA" : "dot") != std::string::npos);
  }
  CHECK(report.best_int8_speedup == Approx(best_ratio).epsilon(1e-12));
}

TEST_CASE("bench int8's float ceiling is the probe of the matmul kernel the float path runs", "[bench]") {
  // SEATORCH_KERNEL=avx2 on an AVX-512 CPU runs the float path on AVX2: its ceiling must be
  // the AVX2 FMA peak, not the CPU's best.
  const test::ScratchDir dir;
  const b::Int8BenchOptions options = small_bench(dir);
  const std::string selected(kernels::selected_kernel());
  for (const kernels::KernelInfo& kernel : kernels::available_kernels()) {
    INFO("matmul kernel " << kernel.name);
    kernels::select_kernel(kernel.name);
    const b::Int8BenchReport report = b::run_int8_bench(options);
    const auto& ceiling = report.ceilings.front();
    if (kernel.fma_probe == nullptr) {
      CHECK_FALSE(ceiling.has_value());
    } else {
      REQUIRE(ceiling.has_value());
      CHECK(ceiling->probe == std::string(kernel.name) + " FMA");
    }
  }
  kernels::select_kernel(selected);
}
