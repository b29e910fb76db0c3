// Figures for docs/NPU.md, "Measurements": not a test that runs by default (tag [.]); run
//   build/release/tests/seatorch_tests "[npu-bench]"
// It loads random 784-128-10 and 784-256-128-10 models into the simulated NPU of each target
// they fit, runs images through it (checking every logit against the reference) and prints
// cycles per inference, MAC utilization, bytes on the wire, simulation speed and wall time per
// image.
#include "seatorch/npu/image_builder.hpp"
#include "seatorch/npu/session.hpp"
#include "seatorch/npu/timing.hpp"

#include "npu_test_models.hpp"
#include "seatorch/quant/int8_model.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <chrono>
#include <utility>

namespace npu = seatorch::npu;
namespace q = seatorch::quant;

TEST_CASE("npu rtl figures for 784-128-10 and 784-256-128-10", "[.][npu-bench]") {
  constexpr std::size_t kImages = 300;
  const std::pair<const char*, std::vector<std::size_t>> runs[] = {
      {"default", {784, 128, 10}}, {"default", {784, 256, 128, 10}}, {"icebreaker", {784, 128, 10}}};
  for (const auto& [target_name, sizes] : runs) {
    const npu::NpuTarget& target = npu::npu_target(target_name);
    const double clock_hz = target.clock_mhz * 1e6;
    seatorch::core::Rng rng(20);
    const q::Int8Model model = npu::test::random_model(rng, sizes);
    const npu::NpuImage image = npu::build_npu_image(model, target);
    npu::NpuSimOptions options;
    options.target = target;
    options.clks_per_bit = 4;
    options.max_attempts = 1;
    npu::NpuSession session(options);
    const auto t0 = std::chrono::steady_clock::now();
    session.load(image);
    const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const npu::NpuStats load = session.stats();

    const auto t1 = std::chrono::steady_clock::now();
    std::size_t agree = 0;
    for (std::size_t n = 0; n < kImages; ++n) {
      const std::vector<std::uint8_t> pixels = npu::test::random_image(rng, model.inputs());
      agree += session.infer(pixels).logits == q::int8_forward_ref(model, pixels) ? 1 : 0;
    }
    const double infer_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    const npu::NpuStats& st = session.stats();
    const double cycles = static_cast<double>(st.npu_cycles) / kImages;
    const double lanes = static_cast<double>(image.lanes());
    const double ideal = static_cast<double>(image.macs()) / lanes;
    const double wire_bytes = static_cast<double>(st.inference_bytes) / kImages;
    fmt::print("{} on the {} target: {} MACs, {} image words, {} load bytes on the wire\n", image.architecture(),
               target.name, image.macs(), image.total_words(), load.load_bytes);
    fmt::print(
        "  NPU cycles per inference {:.0f} (formula {}), MACs/lanes {:.0f}, ratio {:.4f}, MAC utilization {:.1f}%\n",
        cycles, npu::npu_inference_cycles(image), ideal, cycles / ideal,
        100.0 * static_cast<double>(image.macs()) / (cycles * lanes));
    fmt::print("  per image: {:.0f} bytes on the wire, {:.0f} cycles request-to-response at 4 clocks/bit\n", wire_bytes,
               static_cast<double>(st.wire_cycles) / kImages);
    fmt::print("  simulation: {:.2f} M cycles/s overall, {:.3f} ms wall per image, load {:.3f} s ({} cycles)\n",
               st.cycles_per_second() / 1e6, 1e3 * infer_s / kImages, load_s, load.load_cycles);
    for (const double baud : {115200.0, 921600.0, 3000000.0}) {
      const double per_image = wire_bytes * 10.0 / baud + cycles / clock_hz;
      const double load_time = static_cast<double>(load.load_bytes) * 10.0 / baud;
      fmt::print("  at {:.0f} MHz and {:.0f} baud: load {:.3f} s, {:.3f} ms per image ({:.0f} images/s)\n",
                 target.clock_mhz, baud, load_time, 1e3 * per_image, 1.0 / per_image);
    }
    CHECK(agree == kImages);
  }
}
