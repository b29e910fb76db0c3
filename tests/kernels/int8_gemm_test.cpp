// Every int8 gemm kernel against the reference, bit for bit, on odd sizes, strides and the
// extreme values that make vpmaddubsw saturate when used naively.
#include "seatorch/kernels/int8_gemm.hpp"

#include "seatorch/error.hpp"
#include "seatorch/rng.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

namespace k = seatorch::kernels;

namespace {

constexpr std::int32_t kSentinel = 0x5EA70C;

// C from `kernel` for the given A (m, k) stride lda and B (n, k); C has stride n + 3 and
// sentinels past each row's n values.
std::vector<std::int32_t> run(const k::Int8GemmKernel& kernel, const std::vector<std::uint8_t>& a, std::size_t lda,
                              const std::vector<std::int8_t>& b, std::size_t m, std::size_t n, std::size_t kk) {
  const std::vector<std::int8_t> packed = kernel.pack_b(b, n, kk);
  std::vector<std::int32_t> c(m * (n + 3), kSentinel);
  kernel.gemm({m, n, kk, a.data(), lda, packed.data(), c.data(), n + 3});
  return c;
}

void require_same_as_ref(const std::vector<std::uint8_t>& a, std::size_t lda, const std::vector<std::int8_t>& b,
                         std::size_t m, std::size_t n, std::size_t kk) {
  const std::vector<std::int32_t> expected = run(k::int8_gemm_ref(), a, lda, b, m, n, kk);
  for (const std::string& name : k::int8_kernel_names()) {
    const std::vector<std::int32_t> actual = run(k::int8_kernel(name), a, lda, b, m, n, kk);
    for (std::size_t i = 0; i < actual.size(); ++i) {
      INFO("kernel " << name << " m " << m << " n " << n << " k " << kk << " C[" << i / (n + 3) << "][" << i % (n + 3)
                     << "] = " << actual[i] << ", ref " << expected[i]);
      REQUIRE(actual[i] == expected[i]);
    }
  }
}

}  // namespace

TEST_CASE("int8 kernels equal the reference on random sizes and values", "[kernels][quant]") {
  seatorch::Rng rng(41);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t m = 1 + rng.below(9), n = 1 + rng.below(40), kk = 1 + rng.below(150);
    const std::size_t lda = kk + rng.below(5);
    std::vector<std::uint8_t> a(m * lda);
    std::vector<std::int8_t> b(n * kk);
    const bool extremes = trial % 3 == 0;
    for (auto& v : a) v = extremes ? (rng.below(2) ? 255 : 0) : static_cast<std::uint8_t>(rng.below(256));
    for (auto& v : b) v = static_cast<std::int8_t>(extremes ? (rng.below(2) ? 127 : -128) : static_cast<int>(rng.below(256)) - 128);
    require_same_as_ref(a, lda, b, m, n, kk);
  }
}

TEST_CASE("int8 kernels do not saturate where vpmaddubsw would", "[kernels][quant]") {
  // 255*127 + 255*127 = 64770 and 255*-128 * 2 = -65280 overflow int16 pair sums.
  const std::size_t m = 5, n = 19, kk = 784;
  for (std::int8_t w : {std::int8_t{127}, std::int8_t{-128}}) {
    const std::vector<std::uint8_t> a(m * kk, 255);
    const std::vector<std::int8_t> b(n * kk, w);
    for (const std::string& name : k::int8_kernel_names()) {
      const std::vector<std::int32_t> c = run(k::int8_kernel(name), a, kk, b, m, n, kk);
      INFO("kernel " << name << " w " << int{w} << ": C[0][0] = " << c[0] << ", exact " << 255 * int{w} * 784);
      REQUIRE(c[0] == 255 * int{w} * 784);
      REQUIRE(c[(m - 1) * (n + 3) + n - 1] == 255 * int{w} * 784);
    }
  }
}

TEST_CASE("int8 kernel names and forced selection", "[kernels][quant]") {
  const std::vector<std::string> names = k::int8_kernel_names();
  REQUIRE(!names.empty());
  CHECK(names.back() == "ref");
  CHECK(k::int8_kernel("auto").name == names.front());
  for (const std::string& name : names) CHECK(k::int8_kernel(name).name == name);
  CHECK_THROWS_WITH(k::int8_kernel("sse9"), Catch::Contains("sse9") && Catch::Contains("ref"));
}
