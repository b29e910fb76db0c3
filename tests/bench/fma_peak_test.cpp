// The FMA peak: a plausible probe with an ISA this CPU has, the higher of two probes, and the
// cores a run's threads can use, which several threads' peak is the one-core probe times.
#include "seatorch/bench/fma_peak.hpp"
#include "seatorch/bench/timing.hpp"

#include "seatorch/kernels/kernel_registry.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <thread>
#include <utility>

namespace b = seatorch::bench;
namespace k = seatorch::kernels;

TEST_CASE("the FMA peak probe returns a plausible throughput", "[bench]") {
  const std::optional<b::FmaPeak> peak = b::measure_fma_peak(0.01);
  bool has_probe = false;
  for (const k::KernelInfo& kernel : k::available_kernels()) has_probe |= kernel.fma_probe != nullptr;
  REQUIRE(peak.has_value() == has_probe);
  if (peak) {
    INFO("peak " << peak->gflops << " GFLOPS with " << peak->isa);
    // One core: more than a scalar FPU at 1 GHz, less than any core built so far can do.
    CHECK(peak->gflops > 1.0);
    CHECK(peak->gflops < 1000.0);
    CHECK(k::find_kernel(peak->isa) != nullptr);
  }
}

TEST_CASE("peak_cores counts the cores a run's threads can use", "[bench]") {
  // Two probes' ratio is not compared: on a shared machine one probe alone can read a fifth
  // low (DECISIONS 111).
  const std::size_t cpus = std::max(1u, std::thread::hardware_concurrency());
  CHECK(b::peak_cores(2) == std::min<std::size_t>(2, cpus));
  CHECK(b::peak_cores(1) == 1);
  CHECK(b::peak_cores(0) == 1);
  CHECK(b::peak_cores(cpus + 5) == cpus);
}

TEST_CASE("higher_probe keeps the peak read higher, before or after, with its ISA", "[bench]") {
  const b::FmaPeak slowed{"avx512", 193.1};  // a probe the host slowed for a moment
  const b::FmaPeak fast{"avx2", 241.4};
  const auto higher = [](const std::optional<b::FmaPeak>& before, const std::optional<b::FmaPeak>& after) {
    return b::higher_probe(before, after, &b::FmaPeak::gflops);
  };
  for (const auto& [before, after] : {std::pair{slowed, fast}, std::pair{fast, slowed}}) {
    const std::optional<b::FmaPeak> kept = higher(before, after);
    REQUIRE(kept.has_value());
    CHECK(kept->gflops == 241.4);
    CHECK(kept->isa == "avx2");
  }
  const std::optional<b::FmaPeak> none;
  CHECK(higher(none, none) == std::nullopt);
  CHECK(higher(slowed, none)->gflops == 193.1);
  CHECK(higher(none, fast)->gflops == 241.4);
}
