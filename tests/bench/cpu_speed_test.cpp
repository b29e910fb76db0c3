// Each CPU's speed alone: the product the sparse probe times is the first layer's real one
// (the same bits as the kernel's dense product of its batch, a digit-like share of ink), and
// cpu_speed() measures each CPU this process may use and refuses one it cannot.
#include "seatorch/bench/cpu_speed.hpp"

#include "../same_bits.hpp"
#include "seatorch/bench/cpu_set.hpp"
#include "seatorch/kernels/kernel_registry.hpp"
#include "seatorch/kernels/matmul.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <iomanip>
#include <optional>
#include <vector>

namespace b = seatorch::bench;
namespace k = seatorch::kernels;

TEST_CASE("The sparse probe multiplies its digits as the dense product does, bit for bit", "[bench]") {
  b::SparseProbe probe;
  probe.run();
  // MNIST's digits light about 19 % of their pixels; the probe is meant to load L1 as they do.
  const double density = probe.rows().density();
  INFO("density " << density);
  CHECK(density > 0.12);
  CHECK(density < 0.25);

  std::vector<float> want(b::kSparseProbeRows * b::kSparseProbeWidth);  // (rows, width)
  k::selected_kernel_info().matmul({{b::kSparseProbeRows, b::kSparseProbeWidth, b::kSparseProbeDepth},
                                    probe.batch().data(),
                                    b::kSparseProbeDepth,
                                    k::Transpose::kNo,
                                    probe.weights().data(),
                                    b::kSparseProbeDepth,
                                    k::Transpose::kYes,
                                    want.data(),
                                    b::kSparseProbeWidth,
                                    false},
                                   {});
  const std::vector<float> got(probe.output().begin(), probe.output().end());
  if (const auto diff = seatorch::test::first_bit_difference(got, want)) {
    FAIL_CHECK("C[" << *diff / b::kSparseProbeWidth << ", " << *diff % b::kSparseProbeWidth
                    << "] = " << std::setprecision(9) << got[*diff] << ", the dense product gives " << want[*diff]);
  }
}

TEST_CASE("cpu_speed measures every CPU this process may use and refuses one it cannot", "[bench]") {
  const std::vector<std::size_t> cpus = b::allowed_cpus();
  REQUIRE_FALSE(cpus.empty());
  const std::vector<b::CpuSpeed> speeds = b::allowed_cpu_speeds();
  REQUIRE(speeds.size() == cpus.size());
  for (std::size_t i = 0; i < speeds.size(); ++i) {
    INFO("CPU " << speeds[i].cpu << ": FMA " << speeds[i].fma_gflops.value_or(0.0) << " GFLOPS, sparse product "
                << speeds[i].sparse_product_us << " us");
    CHECK(speeds[i].cpu == cpus[i]);
    // Between a slow core's scalar FMAs and more than any core has; a product of 128 rows of
    // some 130 nonzeros times 128 columns, 4.2 MFLOP, between 1 us and 100 ms.
    if (speeds[i].fma_gflops) {
      CHECK(*speeds[i].fma_gflops > 0.1);
      CHECK(*speeds[i].fma_gflops < 1e4);
    }
    CHECK(speeds[i].sparse_product_us > 1.0);
    CHECK(speeds[i].sparse_product_us < 1e5);
    // With several CPUs, each one's product with all at once, within the same bounds.
    REQUIRE(speeds[i].sparse_product_at_once_us.has_value() == (cpus.size() > 1));
    if (speeds[i].sparse_product_at_once_us) {
      INFO("at once: " << *speeds[i].sparse_product_at_once_us << " us");
      CHECK(*speeds[i].sparse_product_at_once_us > 1.0);
      CHECK(*speeds[i].sparse_product_at_once_us < 1e5);
    }
  }
  CHECK_FALSE(b::cpu_speed(100000).has_value());  // past any machine's mask
  CHECK_FALSE(b::cpu_speed(0).value_or(b::CpuSpeed{}).sparse_product_at_once_us.has_value());
}

TEST_CASE("sparse_products_at_once times the product on every CPU given and refuses one it cannot pin", "[bench]") {
  const std::vector<std::size_t> cpus = b::allowed_cpus();
  const std::optional<std::vector<double>> at_once = b::sparse_products_at_once(cpus);
  REQUIRE(at_once.has_value());
  REQUIRE(at_once->size() == cpus.size());
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    INFO("CPU " << cpus[i] << ": " << (*at_once)[i] << " us with " << cpus.size() << " CPU(s) at once");
    // As cpu_speed() bounds it alone: 4.2 MFLOP between 1 us and 100 ms.
    CHECK((*at_once)[i] > 1.0);
    CHECK((*at_once)[i] < 1e5);
  }
  const std::vector<std::size_t> with_missing{cpus[0], 100000};  // the second past any machine's mask
  CHECK_FALSE(b::sparse_products_at_once(with_missing).has_value());
}
