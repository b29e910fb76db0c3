// The matmul bench's pieces: shape strings, the default problems, the FMA-peak probe, the
// timer, and a tiny end-to-end run.
#include "seatorch/bench/blas_core.hpp"
#include "seatorch/bench/blas_reference.hpp"
#include "seatorch/bench/matmul_bench.hpp"
#include "seatorch/bench/timing.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/kernels/kernel_registry.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace b = seatorch::bench;
namespace k = seatorch::kernels;

namespace {

// A work for the timing helpers that appends its name to `order` on every call, then spins.
std::function<void()> logged_work(std::string& order, char name, int loops) {
  return [&order, name, loops] {
    order += name;
    volatile double sink = 0.0;
    for (int i = 0; i < loops; ++i) sink = sink + 1.0;
  };
}

}  // namespace

TEST_CASE("parse_matmul_problem reads MxNxK with an optional form", "[bench]") {
  const b::MatmulProblem plain = b::parse_matmul_problem("64x128x784");
  CHECK(plain.shape.m == 64);
  CHECK(plain.shape.n == 128);
  CHECK(plain.shape.k == 784);
  CHECK(b::form_name(plain) == "nn");

  for (const char* form : {"nn", "tn", "nt", "tt"}) {
    const b::MatmulProblem p = b::parse_matmul_problem(std::string("1x2x3:") + form);
    INFO("form " << form);
    CHECK(b::form_name(p) == form);
    CHECK(p.ta == k::Transpose{form[0] == 't'});
    CHECK(p.tb == k::Transpose{form[1] == 't'});
    CHECK(p.shape.k == 3);
  }
}

TEST_CASE("parse_matmul_problem rejects malformed shapes with one clear line", "[bench]") {
  for (const char* text : {"",         "64",        "64x",      "64x128",    "x1x2",
                           "1xx2",     "1x2x3x4",   "0x1x1",    "1x1x0",     "-1x2x3",
                           "+1x2x3",   "1x2x3 ",    " 1x2x3",   "1.5x2x3",   "1x2x3:",
                           "1x2x3:nx", "1x2x3:nnn", "1x2x3:NN", "16385x1x1", "99999999999999999999x1x1"}) {
    INFO("shape '" << text << "'");
    try {
      b::parse_matmul_problem(text);
      FAIL("accepted");
    } catch (const seatorch::core::InputError& e) {
      const std::string message = e.what();
      CHECK(message.find(std::string("'") + text + "'") != std::string::npos);
      CHECK(message.find("MxNxK") != std::string::npos);
      CHECK(message.find('\n') == std::string::npos);
    }
  }
}

TEST_CASE("the default problems are the square sizes and the MLP's products", "[bench]") {
  CHECK(b::default_matmul_sizes() == std::vector<std::size_t>{64, 128, 256, 512, 1024});
  const auto squares = b::square_matmul_problems({3, 5});
  REQUIRE(squares.size() == 2);
  CHECK((squares[1].shape.m == 5 && squares[1].shape.n == 5 && squares[1].shape.k == 5));
  CHECK_THROWS_AS(b::square_matmul_problems({0}), seatorch::core::InputError);
  CHECK_THROWS_AS(b::square_matmul_problems({20000}), seatorch::core::InputError);

  std::vector<std::string> mlp;
  for (const b::MatmulProblem& p : b::mlp_matmul_problems()) {
    mlp.push_back(std::to_string(p.shape.m) + "x" + std::to_string(p.shape.n) + "x" + std::to_string(p.shape.k) + ":" +
                  b::form_name(p));
  }
  CHECK(mlp ==
        std::vector<std::string>{"64x128x784:nn", "64x10x128:nn", "784x128x64:tn", "128x10x64:tn", "64x128x10:nt"});
}

TEST_CASE("time_interleaved warms up each work, calibrates its calls and then takes its warmed samples in turn",
          "[bench]") {
  for (b::TimingClock clock : {b::TimingClock::kWall, b::TimingClock::kThreadCpu}) {
    INFO("clock " << b::clock_name(clock));
    std::string order;
    const std::vector<b::Timing> t =
        b::time_interleaved({logged_work(order, 'a', 1000), logged_work(order, 'b', 200000)},
                            {.samples = 3, .min_sample_seconds = 0.001, .clock = clock});
    REQUIRE(t.size() == 2);
    for (const b::Timing& timing : t) {
      CHECK(timing.samples == 3);
      CHECK(timing.calls_per_sample >= 1);
      CHECK(timing.seconds > 0.0);
    }
    // One warm-up call each, then three rounds of a's sample followed by b's, each sample after
    // one untimed call of its work.
    std::string expected = "ab";
    for (int r = 0; r < 3; ++r) {
      expected += std::string(1 + t[0].calls_per_sample, 'a');
      expected += std::string(1 + t[1].calls_per_sample, 'b');
    }
    CHECK(order == expected);
  }
}

TEST_CASE("time_interleaved with no minimum times one call of each work per round, after an untimed one", "[bench]") {
  std::string order;
  const std::vector<b::Timing> t =
      b::time_interleaved({logged_work(order, 'a', 1000), logged_work(order, 'b', 200000)},
                          {.samples = 3, .min_sample_seconds = 0.0, .clock = b::TimingClock::kThreadCpu});
  CHECK(order == "abaabbaabbaabb");
  REQUIRE(t.size() == 2);
  CHECK(t[0].seconds > 0.0);
  CHECK(t[1].seconds > t[0].seconds);  // 200 times the work
}

TEST_CASE("median of odd and even counts", "[bench]") {
  CHECK(b::median({3.0}) == 3.0);
  CHECK(b::median({5.0, 1.0, 3.0}) == 3.0);
  CHECK(b::median({4.0, 1.0, 3.0, 2.0}) == 2.5);
}

TEST_CASE("the thread CPU clock advances with work and not with sleep", "[bench]") {
  // Each interval is read wall first, CPU second at its start and the reverse at its end,
  // so the wall interval contains the CPU one: wall elapsed >= CPU elapsed, always.
  const double wall0 = b::now_seconds(b::TimingClock::kWall);
  const double cpu0 = b::now_seconds(b::TimingClock::kThreadCpu);
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  const double cpu1 = b::now_seconds(b::TimingClock::kThreadCpu);
  const double wall1 = b::now_seconds(b::TimingClock::kWall);
  CHECK(wall1 - wall0 >= 0.030);
  CHECK(cpu1 - cpu0 < 0.015);  // a sleeping thread uses (next to) no CPU

  const double wall2 = b::now_seconds(b::TimingClock::kWall);
  const double cpu2 = b::now_seconds(b::TimingClock::kThreadCpu);
  volatile double sink = 0.0;
  double cpu3 = cpu2;
  while (cpu3 - cpu2 < 0.005) {
    sink = sink + 1.0;
    cpu3 = b::now_seconds(b::TimingClock::kThreadCpu);
  }
  CHECK(b::now_seconds(b::TimingClock::kWall) - wall2 >= cpu3 - cpu2);
}

TEST_CASE("run_matmul_bench measures every kernel asked for and the BLAS", "[bench]") {
  b::MatmulBenchOptions options;
  options.problems = {b::parse_matmul_problem("9x7x5:tn"), b::parse_matmul_problem("16x1x3:nt")};
  options.kernels = {"ref", "blocked"};
  options.reps = 1;
  options.min_sample_seconds = 0.001;
  std::vector<b::MatmulBenchRow> seen;
  const b::MatmulBenchReport report =
      b::run_matmul_bench(options, [&](const b::MatmulBenchRow& row) { seen.push_back(row); });
  const bool blas = !b::blas_name().empty();
  CHECK(report.blas == b::blas_name());
  CHECK(report.blas_unfair == (report.blas.empty() ? std::string() : b::blas_core().unfair_reason()));
  CHECK(report.clock == b::TimingClock::kThreadCpu);
  const std::size_t per_problem = blas ? 3u : 2u;
  REQUIRE(report.rows.size() == 2 * per_problem);
  REQUIRE(seen.size() == report.rows.size());
  // FLOPs of each problem by hand: 2 * 9 * 7 * 5 = 630 and 2 * 16 * 1 * 3 = 96.
  const double flops[] = {630.0, 96.0};
  const char* forms[] = {"tn", "nt"};
  const std::size_t ms[] = {9, 16};
  for (std::size_t i = 0; i < report.rows.size(); ++i) {
    const b::MatmulBenchRow& row = report.rows[i];
    const std::size_t p = i / per_problem;
    INFO("row " << i << ": kernel " << row.kernel << ", " << row.gflops << " GFLOPS in " << row.seconds << " s");
    const char* kernel = i % per_problem == 0 ? "ref" : i % per_problem == 1 ? "blocked" : "blas";
    CHECK(row.kernel == kernel);
    CHECK(row.problem.shape.m == ms[p]);
    CHECK(b::form_name(row.problem) == forms[p]);
    CHECK(seen[i].kernel == row.kernel);  // progress saw each row, in the report's order
    CHECK(seen[i].seconds == row.seconds);
    // A product of a few hundred FLOPs takes well under a millisecond per call, and more
    // than a picosecond.
    CHECK(row.seconds > 1e-12);
    CHECK(row.seconds < 1e-3);
    CHECK(row.gflops > 0.0);
    CHECK(row.gflops * row.seconds * 1e9 == Approx(flops[p]).epsilon(1e-9));
    CHECK(row.pct_peak.has_value() == report.peak.has_value());
    if (row.pct_peak) CHECK(*row.pct_peak == Approx(100.0 * row.gflops / report.peak->gflops));
    // A BLAS on a core below this CPU's ISA (blas_core.hpp) gets no ratio.
    CHECK(row.ratio_to_blas.has_value() == (blas && report.blas_unfair.empty() && row.kernel != "blas"));
    if (row.ratio_to_blas) {
      const b::MatmulBenchRow& blas_row = report.rows[p * per_problem + 2];
      REQUIRE(blas_row.kernel == "blas");
      CHECK(*row.ratio_to_blas == Approx(row.gflops / blas_row.gflops));
    }
  }

  options.kernels = {"no-such-kernel"};
  CHECK_THROWS_AS(b::run_matmul_bench(options), seatorch::core::InputError);
  options.kernels = {};
  options.problems = {};
  CHECK_THROWS_AS(b::run_matmul_bench(options), seatorch::core::InputError);
}

TEST_CASE("blas_sgemm agrees with matmul_ref when the build has a BLAS", "[bench]") {
  // Exactly one of the two: a BLAS that loaded, or the reason there is none.
  CHECK(b::blas_name().empty() != b::blas_missing_reason().empty());
  if (b::blas_name().empty()) {
    CHECK_THROWS_AS(b::blas_sgemm({}), std::logic_error);
    return;
  }
  // (2, 3) * (3, 2), both stored transposed, accumulating into C.
  const std::vector<float> a{1.f, 4.f, 2.f, 5.f, 3.f, 6.f};      // (3, 2): A stored transposed
  const std::vector<float> bt{7.f, 9.f, 11.f, 8.f, 10.f, 12.f};  // (2, 3): B stored transposed
  std::vector<float> c{1.f, 1.f, 1.f, 1.f}, expected = c;
  const k::MatmulArgs args{{2, 2, 3}, a.data(), 2,   k::Transpose::kYes, bt.data(), 3, k::Transpose::kYes,
                           nullptr,   2,        true};
  k::MatmulArgs mine = args, theirs = args;
  mine.c = expected.data();
  theirs.c = c.data();
  k::matmul_ref(mine);
  b::blas_sgemm(theirs);
  CHECK(c == expected);
  CHECK(expected == std::vector<float>{59.f, 65.f, 140.f, 155.f});
}

TEST_CASE("on two threads the matmul bench needs the wall clock and reports both cores' peak", "[bench]") {
  const seatorch::core::ScopedThreads count(2);
  b::MatmulBenchOptions options;
  options.problems = {b::parse_matmul_problem("64x256x128:nn")};
  options.kernels = {"blocked"};
  options.reps = 1;
  options.min_sample_seconds = 0.001;
  options.blas = false;
  CHECK_THROWS_AS(b::check_clock(b::TimingClock::kThreadCpu), seatorch::core::OptionError);
  CHECK_THROWS_AS(b::run_matmul_bench(options), seatorch::core::OptionError);  // the thread CPU clock
  options.clock = b::TimingClock::kWall;
  const b::MatmulBenchReport report = b::run_matmul_bench(options);
  CHECK(report.threads == 2);
  REQUIRE(report.rows.size() == 1);
  CHECK(report.rows[0].gflops > 0.0);
  const std::optional<b::FmaPeak> two = b::measure_fma_peak(0.02, b::TimingClock::kWall, 2);
  CHECK(two.has_value() == report.peak.has_value());
}
