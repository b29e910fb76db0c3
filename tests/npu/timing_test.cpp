// The NPU's cycle model (timing.hpp) on shapes whose cycle counts were derived by hand from
// the RTL, for each target's requantizer; the simulation tests (session_test.cpp) check the
// RTL against the same model.
#include "seatorch/npu/timing.hpp"

#include "npu_test_models.hpp"
#include "seatorch/npu/image_builder.hpp"

#include <catch2/catch.hpp>

namespace npu = seatorch::npu;
namespace q = seatorch::quant;

TEST_CASE("npu timing formula on shapes derived by hand from the RTL", "[npu]") {
  // A layer, read off npu_sequencer.sv: 5 cycles of descriptor fetch; one issue per input of
  // the first group; per further group the larger of `in` and what the feeder and the
  // requantizer allow; from the last issue 5 cycles to the first output leaving the shadow
  // bank (the memory read, the MAC array's 3 stages, the shadow bank's load); the last
  // group's other c - 1 outputs one requantizer interval apart; then the feeder's register,
  // the requantizer's latency and the cycle in which the sequencer sees it idle.
  const auto layer = [](std::size_t in, std::size_t out) {
    npu::NpuLayerInfo info;
    info.in = in;
    info.out = out;
    return info;
  };
  const npu::NpuTarget& fast = npu::npu_target("default");
  const npu::NpuTarget& ice = npu::npu_target("icebreaker");

  // default: 16 lanes, the pipelined requantizer (interval 1, latency 4). A group's last
  // input waits until the previous group has left the shadow bank: 5 + 16 - 1 + 1 = 21 cycles
  // after that group's last input. So 5 + in + (G-1) max(in, 21) + 5 + (c-1) + 1 + 4 + 1.
  CHECK(npu::npu_layer_cycles(layer(784, 128), fast) == 15 + 8 * 784 + 16);  // 8 full groups
  CHECK(npu::npu_layer_cycles(layer(128, 10), fast) == 15 + 128 + 10);       // 1 partial group
  CHECK(npu::npu_layer_cycles(layer(8, 40), fast) == 15 + 8 + 2 * 21 + 8);   // in < 21: waits
  CHECK(npu::npu_layer_cycles(layer(21, 40), fast) == 15 + 21 + 2 * 21 + 8);
  CHECK(npu::npu_layer_cycles(layer(3, 1), fast) == 15 + 3 + 1);

  // icebreaker: 8 lanes, the serial requantizer (interval = latency = 68: its state machine
  // takes an output through Sum, 32 Mul, Round, 31 Shift, Add and Clamp, and is ready again in
  // Clamp). A group's outputs enter the requantizer 68 cycles apart, so the next group's start
  // 8 * 68 = 544 cycles after this group's; its last input waits for this group's last output,
  // 5 + 7 * 68 + 1 = 482 cycles after this group's last input, which the 544 already cover. So
  // 5 + in + (G-1) max(in, 544) + 5 + 68 (c-1) + 1 + 68 + 1 = 12 + in + (G-1) max(in, 544) + 68 c.
  CHECK(npu::npu_layer_cycles(layer(784, 128), ice) == 12 + 16 * 784 + 68 * 8);  // the MAC array sets the pace
  CHECK(npu::npu_layer_cycles(layer(128, 10), ice) == 12 + 128 + 544 + 68 * 2);  // the requantizer does
  CHECK(npu::npu_layer_cycles(layer(500, 16), ice) == 12 + 500 + 544 + 68 * 8);  // 482 < in < 544
  CHECK(npu::npu_layer_cycles(layer(544, 17), ice) == 12 + 544 + 2 * 544 + 68);
  CHECK(npu::npu_layer_cycles(layer(8, 40), ice) == 12 + 8 + 68 * 40);  // every output 68 apart
  CHECK(npu::npu_layer_cycles(layer(3, 1), ice) == 12 + 3 + 68);

  // A whole inference is the sum over the layers.
  seatorch::core::Rng rng(5);
  const q::Int8Model model = npu::test::random_model(rng, {784, 128, 10});
  CHECK(npu::npu_inference_cycles(npu::build_npu_image(model, fast)) == (15 + 8 * 784 + 16) + (15 + 128 + 10));
  CHECK(npu::npu_inference_cycles(npu::build_npu_image(model, ice)) == 13100 + 820);
}
