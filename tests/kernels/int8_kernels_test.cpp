// Every int8 kernel (gemm, requantize, the fused layer) against the reference, bit for bit,
// on odd sizes, strides and the extreme values that make vpmaddubsw saturate when used naively.
#include "seatorch/kernels/int8_kernels.hpp"

#include "seatorch/bench/timing.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/core/rng.hpp"
#include "seatorch/kernels/fixed_point.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace k = seatorch::kernels;

namespace {

constexpr std::int32_t kSentinel = 0x5EA70C;

// C from `kernel` for the given A (m, k) stride lda and B (n, k); C has stride n + 3 and
// sentinels past each row's n values.
std::vector<std::int32_t> run(const k::Int8Kernel& kernel, const std::vector<std::uint8_t>& a, std::size_t lda,
                              const std::vector<std::int8_t>& b, std::size_t m, std::size_t n, std::size_t kk) {
  const std::vector<std::int8_t> packed = kernel.pack_b(b, n, kk);
  std::vector<std::int32_t> c(m * (n + 3), kSentinel);
  kernel.gemm({m, n, kk, a.data(), lda, packed.data(), c.data(), n + 3});
  return c;
}

void require_same_as_ref(const std::vector<std::uint8_t>& a, std::size_t lda, const std::vector<std::int8_t>& b,
                         std::size_t m, std::size_t n, std::size_t kk) {
  const std::vector<std::int32_t> expected = run(k::int8_kernel_ref(), a, lda, b, m, n, kk);
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
  seatorch::core::Rng rng(41);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t m = 1 + rng.below(9), n = 1 + rng.below(40), kk = 1 + rng.below(150);
    const std::size_t lda = kk + rng.below(5);
    std::vector<std::uint8_t> a(m * lda);
    std::vector<std::int8_t> b(n * kk);
    const bool extremes = trial % 3 == 0;
    for (auto& v : a) v = extremes ? (rng.below(2) ? 255 : 0) : static_cast<std::uint8_t>(rng.below(256));
    for (auto& v : b)
      v = static_cast<std::int8_t>(extremes ? (rng.below(2) ? 127 : -128) : static_cast<int>(rng.below(256)) - 128);
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

#if defined(__x86_64__)
TEST_CASE("the int8 kernels listed are those whose instructions /proc/cpuinfo names", "[kernels][quant]") {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line) && line.rfind("flags", 0) != 0) {
  }
  if (line.empty()) {
    WARN("no flags line in /proc/cpuinfo: nothing to compare");
    return;
  }
  std::set<std::string> flags;
  std::istringstream words(line.substr(line.find(':') + 1));
  for (std::string flag; words >> flag;) flags.insert(flag);
  const auto has = [&flags](std::initializer_list<const char*> wanted) {
    return std::all_of(wanted.begin(), wanted.end(), [&flags](const char* f) { return flags.count(f) > 0; });
  };
  const std::vector<std::string> names = k::int8_kernel_names();
  const auto listed = [&names](const char* name) { return std::find(names.begin(), names.end(), name) != names.end(); };
  INFO("flags:" << line.substr(line.find(':') + 1));
  CHECK(listed("avx512vnni") == has({"avx512f", "avx512bw", "avx512_vnni"}));
  CHECK(listed("avxvnni") == has({"avx2", "avx_vnni"}));
  CHECK(listed("avx512bw") == has({"avx512f", "avx512bw"}));
  CHECK(listed("avx2") == has({"avx2"}));
  // AMX also needs Linux to grant the process its tile state, which a kernel that lists the
  // flags does (5.16 and later).
  CHECK(listed("amx") == has({"avx512f", "avx512bw", "amx_tile", "amx_int8"}));
}
#endif

TEST_CASE("every fast int8 kernel has a dot probe with a plausible throughput", "[kernels][quant]") {
  CHECK(k::int8_kernel_ref().dot_probe == nullptr);
  for (const std::string& name : k::int8_kernel_names()) {
    const k::Int8Kernel& kernel = k::int8_kernel(name);
    if (name == "ref") continue;
    INFO("kernel " << name);
    REQUIRE(kernel.dot_probe != nullptr);
    const double products =
        seatorch::bench::best_probe_rate(kernel.dot_probe, 0.01, seatorch::bench::TimingClock::kThreadCpu);
    // One core: more than one product per nanosecond, less than any core built so far can do
    // (a 512-bit VNNI unit does 64 per cycle).
    CHECK(products > 1e9);
    CHECK(products < 1e13);
  }
}

TEST_CASE("int8 requantize kernels equal kernels::requantize on the whole int32 range", "[kernels][quant]") {
  seatorch::core::Rng rng(43);
  // |acc| stays 255 below 2^31 so that z_y + srdhm(...) cannot overflow in the reference.
  constexpr std::int64_t kLimit = (std::int64_t{1} << 31) - 256;
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 1 + rng.below(45);
    const bool extremes = trial % 4 == 0;
    std::vector<std::int32_t> dots(n), row_constant(n), multiplier(n), shift(n);
    for (std::size_t j = 0; j < n; ++j) {
      const std::int64_t acc =
          extremes ? (rng.below(2) ? kLimit : -kLimit) : static_cast<std::int64_t>(rng.below(2 * kLimit + 1)) - kLimit;
      dots[j] = static_cast<std::int32_t>(rng.below(1u << 24)) - (1 << 23);
      row_constant[j] = static_cast<std::int32_t>(acc - dots[j]);  // may wrap with the correction below
      multiplier[j] = extremes ? (rng.below(2) ? (1 << 30) : 0x7FFFFFFF)
                               : static_cast<std::int32_t>((1u << 30) + rng.below(1u << 30));
      shift[j] = extremes ? (rng.below(2) ? 0 : 31) : static_cast<std::int32_t>(rng.below(32));
    }
    const std::int32_t correction = trial % 3 == 0 ? 0 : static_cast<std::int32_t>(rng.below(1u << 20)) - (1 << 19);
    for (std::size_t j = 0; j < n; ++j) {
      row_constant[j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(row_constant[j]) +
                                                  static_cast<std::uint32_t>(correction));
    }
    const std::int32_t zero_point =
        extremes ? (rng.below(2) ? 127 : -128) : static_cast<std::int32_t>(rng.below(256)) - 128;
    const bool relu = rng.below(2) == 1;
    std::vector<std::int8_t> y_ref(n), y(n);
    std::vector<std::uint8_t> u_ref(n), u(n);
    k::int8_kernel_ref().requantize({n, dots.data(), row_constant.data(), correction, multiplier.data(), shift.data(),
                                     zero_point, relu, y_ref.data(), u_ref.data()});
    for (const std::string& name : k::int8_kernel_names()) {
      k::int8_kernel(name).requantize({n, dots.data(), row_constant.data(), correction, multiplier.data(), shift.data(),
                                       zero_point, relu, y.data(), u.data()});
      std::vector<std::uint8_t> u_only(n);  // y null: only u is written
      k::int8_kernel(name).requantize({n, dots.data(), row_constant.data(), correction, multiplier.data(), shift.data(),
                                       zero_point, relu, nullptr, u_only.data()});
      for (std::size_t j = 0; j < n; ++j) {
        INFO("kernel " << name << " trial " << trial << " j " << j << ": y " << int{y[j]} << " ref " << int{y_ref[j]}
                       << ", M " << multiplier[j] << " shift " << shift[j] << " z " << zero_point);
        REQUIRE(y[j] == y_ref[j]);
        REQUIRE(u[j] == u_ref[j]);
        REQUIRE(u_only[j] == u_ref[j]);
        REQUIRE(int{u[j]} == int{y[j]} + 128);
      }
    }
  }
}

TEST_CASE("int8 requantize kernels round exact halves away from zero, as kernels::requantize does",
          "[kernels][quant]") {
  // With M = 2^30, srdhm(acc, M) = floor((acc + 1) / 2), so acc = 2x puts x where wanted: on
  // each side of, and exactly on, the halves t + 1/2 of x / 2^s for every shift, positive and
  // negative, where random accumulators would land almost never (and saturate when they do).
  constexpr std::int64_t kLimit = (std::int64_t{1} << 31) - 256;
  std::vector<std::int32_t> dots, multiplier, shift;
  for (int s = 0; s < 32; ++s) {
    const std::int64_t half = s == 0 ? 0 : std::int64_t{1} << (s - 1);
    for (std::int64_t t = -4; t <= 3; ++t) {
      for (std::int64_t d = -1; d <= 1; ++d) {
        const std::int64_t x = t * (std::int64_t{1} << s) + half + d;
        if (2 * x <= -kLimit || 2 * x >= kLimit) continue;
        dots.push_back(static_cast<std::int32_t>(2 * x));
        multiplier.push_back(1 << 30);
        shift.push_back(s);
      }
    }
  }
  const std::size_t n = dots.size();
  const std::vector<std::int32_t> row_constant(n, 0);
  std::vector<std::int8_t> y(n);
  std::vector<std::uint8_t> u(n);
  // Plain; a ReLU layer whose zero-point (the lower bound) sits among the outputs; and one at
  // -128, as calibrated ReLU layers are.
  const std::pair<bool, std::int32_t> layers[] = {{false, 0}, {true, -3}, {true, -128}};
  for (const auto& [relu, zero_point] : layers) {
    for (const std::string& name : k::int8_kernel_names()) {
      k::int8_kernel(name).requantize({n, dots.data(), row_constant.data(), 0, multiplier.data(), shift.data(),
                                       zero_point, relu, y.data(), u.data()});
      for (std::size_t j = 0; j < n; ++j) {
        const std::int8_t want = k::requantize(dots[j], multiplier[j], shift[j], zero_point, relu);
        INFO("kernel " << name << " relu " << relu << " acc " << dots[j] << " shift " << shift[j] << ": y " << int{y[j]}
                       << " ref " << int{want});
        REQUIRE(y[j] == want);
        REQUIRE(int{u[j]} == int{want} + 128);
      }
    }
  }
}

namespace {

// One random layer for Int8Kernel::layer; `extremes` puts inputs at 0/255, weights at
// -128/127 and the zero-points at the ends of their range; `sparse` leaves four in five of
// each row's groups of 4 inputs all zero, as a digit's margins are (the kernels that skip
// such groups then do).
struct LayerCase {
  std::size_t m, n, kk, lda, ldu;
  std::vector<std::uint8_t> a;             // (m, lda)
  std::vector<std::int8_t> b;              // (n, kk)
  std::vector<std::int32_t> row_constant;  // (n)
  std::vector<std::int32_t> multiplier;    // (n)
  std::vector<std::int32_t> shift;         // (n)
  std::int32_t weight_zero_point, zero_point;
  bool relu;
};

LayerCase random_layer(seatorch::core::Rng& rng, bool extremes, bool sparse) {
  LayerCase c;
  c.m = 1 + rng.below(11);
  c.n = 1 + rng.below(150);  // past one 4 x 16 tile, with partial row blocks
  // A sparse layer's rows past 256 inputs have several 64-bit words of lit bits (a digit's
  // 784 have four).
  c.kk = 1 + rng.below(sparse ? 1100 : 200);
  c.lda = c.kk + rng.below(5);
  c.ldu = c.n + rng.below(5);
  const auto end_or_any = [&](std::int32_t lo, std::int32_t hi) {
    return extremes ? (rng.below(2) ? hi : lo)
                    : lo + static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(hi - lo + 1)));
  };
  for (std::size_t i = 0; i < c.m * c.lda; ++i) c.a.push_back(static_cast<std::uint8_t>(end_or_any(0, 255)));
  for (std::size_t r = 0; sparse && r < c.m; ++r) {
    for (std::size_t p = 0; p < c.kk; p += 4) {
      if (rng.below(5) == 0) continue;
      for (std::size_t q = p; q < std::min(p + 4, c.kk); ++q) c.a[r * c.lda + q] = 0;
    }
  }
  for (std::size_t i = 0; i < c.n * c.kk; ++i) c.b.push_back(static_cast<std::int8_t>(end_or_any(-128, 127)));
  for (std::size_t j = 0; j < c.n; ++j) {
    c.row_constant.push_back(static_cast<std::int32_t>(rng.below(1u << 24)) - (1 << 23));
    c.multiplier.push_back(static_cast<std::int32_t>((1u << 30) + rng.below(1u << 30)));
    c.shift.push_back(static_cast<std::int32_t>(rng.below(32)));
  }
  const std::int32_t zero_points[] = {0, -128, 127};
  c.weight_zero_point = extremes ? zero_points[rng.below(3)] : end_or_any(-128, 127);
  c.zero_point = end_or_any(-128, 127);
  c.relu = rng.below(2) == 1;
  return c;
}

// The layer's u (m, ldu) from `kernel`, with sentinels past each row's n bytes.
std::vector<std::uint8_t> run_layer(const k::Int8Kernel& kernel, const LayerCase& c) {
  const std::vector<std::int8_t> packed = kernel.pack_b(c.b, c.n, c.kk);
  std::vector<std::uint8_t> u(c.m * c.ldu, 0xA5);
  kernel.layer({c.m, c.n, c.kk, c.a.data(), c.lda, packed.data(), c.row_constant.data(), c.weight_zero_point,
                c.multiplier.data(), c.shift.data(), c.zero_point, c.relu, u.data(), c.ldu});
  return u;
}

// Every kernel's fused layer against the specification spelled out: per image, the exact
// correction, gemm, requantize.
void require_layers_as_specified(const LayerCase& c, int trial) {
  std::vector<std::uint8_t> expected(c.m * c.ldu, 0xA5);
  for (std::size_t s = 0; s < c.m; ++s) {
    std::vector<std::int32_t> dots(c.n);
    k::int8_kernel_ref().gemm({1, c.n, c.kk, c.a.data() + s * c.lda, c.lda, c.b.data(), dots.data(), c.n});
    std::int32_t sum_x = 0;
    for (std::size_t i = 0; i < c.kk; ++i) sum_x += c.a[s * c.lda + i] - 128;
    std::vector<std::int8_t> y(c.n);
    k::int8_kernel_ref().requantize({c.n, dots.data(), c.row_constant.data(), c.weight_zero_point * sum_x,
                                     c.multiplier.data(), c.shift.data(), c.zero_point, c.relu, y.data(),
                                     expected.data() + s * c.ldu});
  }
  for (const std::string& name : k::int8_kernel_names()) {
    const std::vector<std::uint8_t> actual = run_layer(k::int8_kernel(name), c);
    for (std::size_t i = 0; i < actual.size(); ++i) {
      INFO("kernel " << name << " trial " << trial << " m " << c.m << " n " << c.n << " k " << c.kk << " z_w "
                     << c.weight_zero_point << " z_y " << c.zero_point << ": u[" << i / c.ldu << "][" << i % c.ldu
                     << "] = " << int{actual[i]} << ", ref " << int{expected[i]});
      REQUIRE(actual[i] == expected[i]);
    }
  }
}

}  // namespace

TEST_CASE("int8 fused layer kernels equal the reference gemm and requantize", "[kernels][quant]") {
  seatorch::core::Rng rng(47);
  for (int trial = 0; trial < 60; ++trial) {
    require_layers_as_specified(random_layer(rng, trial % 2 == 1, trial % 3 == 2), trial);
  }
}

TEST_CASE("int8 fused layers equal the reference where whole blocks of a batch's inputs are zero", "[kernels][quant]") {
  // A batch of digits has its first and last rows of pixels zero in every image: the AMX
  // kernel skips the blocks of 64 inputs that are zero in all 32 images of a pair of tiles, the
  // vector kernels the groups of 4 zero in a tile's rows. Here tiles of 16 rows differ in which
  // blocks are zero, batches end in partial tiles and pairs, and k = 4161 has more blocks than
  // the AMX kernel's 64-bit map of them.
  seatorch::core::Rng rng(53);
  const std::pair<std::size_t, std::size_t> shapes[] = {{96, 784}, {50, 784}, {17, 130}, {40, 4161}, {33, 64}};
  int trial = 0;
  for (const auto& [m, kk] : shapes) {
    LayerCase c = random_layer(rng, false, false);
    c.m = m;
    c.kk = kk;
    c.lda = kk + 3;
    c.a.assign(c.m * c.lda, 0);
    c.b.clear();
    for (std::size_t i = 0; i < c.n * c.kk; ++i) c.b.push_back(static_cast<std::int8_t>(rng.below(256)));
    for (std::size_t r = 0; r < c.m; ++r) {
      const bool second_tile = r / 16 % 2 == 1;  // lit where the first tile of its pair is not
      for (std::size_t p = 0; p < kk; ++p) {
        const bool margin = p < kk / 5 || p + kk / 6 >= kk;
        const bool band = p >= kk / 3 && p < kk / 2;
        if (!margin && (!band || second_tile)) c.a[r * c.lda + p] = static_cast<std::uint8_t>(rng.below(256));
      }
    }
    require_layers_as_specified(c, trial++);
  }
}
