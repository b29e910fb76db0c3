// The line-fault model on its own: faults land on the bytes the sender puts on the wire, bit
// for bit, and the random fault process is seeded and has the rates it is given.
#include "seatorch/npu/line_fault.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/npu/uart.hpp"

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>

namespace npu = seatorch::npu;

TEST_CASE("npu line faults follow the sender's bytes on the wire", "[npu]") {
  // A byte 0x0F at 4 clocks per bit; the fault inverts the stop bit of byte 1 and drops
  // byte 2. The line seen after the faults is compared with the clean line, cycle by cycle.
  constexpr unsigned kCpb = 4;
  npu::UartLineTx tx(kCpb);
  npu::UartLineFaults wire(kCpb, [](std::uint64_t index) {
    npu::WireFault fault;
    if (index == 1) fault.flips = 1U << 9;
    fault.drop = index == 2;
    return fault;
  });
  for (int b = 0; b < 4; ++b) tx.push(0x0F);
  for (unsigned cycle = 0; cycle < 4 * 10 * kCpb + 8; ++cycle) {
    const bool clean = tx.tick();
    const bool seen = wire.tick(clean);
    const unsigned byte = cycle / (10 * kCpb);
    const unsigned bit = cycle % (10 * kCpb) / kCpb;
    const bool expected = byte == 2 ? true : (byte == 1 && bit == 9) ? !clean : clean;
    INFO("cycle " << cycle << " (byte " << byte << ", wire bit " << bit << "): clean " << clean << ", seen " << seen);
    REQUIRE(seen == expected);
  }
  CHECK(wire.counts().bytes == 4);
  CHECK(wire.counts().bytes_hit == 2);
  CHECK(wire.counts().bit_flips == 1);
  CHECK(wire.counts().drops == 1);
}

TEST_CASE("npu random line faults are seeded and refuse bad rates", "[npu]") {
  const npu::LineFaultRates rates{0.05, 0.02};
  npu::NpuLineFault a = npu::random_line_faults(rates, 9);
  npu::NpuLineFault b = npu::random_line_faults(rates, 9);
  std::size_t drops = 0;
  std::size_t flips = 0;
  constexpr std::size_t kBytes = 20000;
  for (std::size_t i = 0; i < kBytes; ++i) {
    const npu::WireFault fa = a(i);
    const npu::WireFault fb = b(i);
    REQUIRE(fa.drop == fb.drop);
    REQUIRE(fa.flips == fb.flips);
    drops += fa.drop ? 1 : 0;
    flips += static_cast<std::size_t>(std::popcount(fa.flips));
  }
  // binomial counts within 5 standard deviations of their means
  const double drop_mean = kBytes * rates.drop_rate;
  const double flip_mean = kBytes * (1 - rates.drop_rate) * 10 * rates.bit_error_rate;
  CHECK(std::abs(static_cast<double>(drops) - drop_mean) < 5 * std::sqrt(drop_mean));
  CHECK(std::abs(static_cast<double>(flips) - flip_mean) < 5 * std::sqrt(flip_mean));
  CHECK(npu::intact_probability(rates, 0) == 1.0);
  CHECK(npu::intact_probability({0.0, 0.5}, 2) == Approx(0.25));
  CHECK_THROWS_AS(npu::random_line_faults({1.0, 0.0}, 1), seatorch::core::InputError);
  CHECK_THROWS_AS(npu::random_line_faults({0.0, -0.1}, 1), seatorch::core::InputError);
}
