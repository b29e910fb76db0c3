// The optimizer loops: every build this CPU runs against the reference, bit for bit, for
// every combination of the options the loops branch on, on lengths around the vector widths
// and on ranges that start inside the parameter. (That the reference follows PyTorch is
// train/optimizer_test.cpp's business, against PyTorch's own numbers.)
#include "seatorch/kernels/optimizer_update.hpp"

#include "../same_bits.hpp"

#include "seatorch/core/rng.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <ios>
#include <iostream>
#include <iterator>
#include <limits>
#include <optional>
#include <vector>

namespace k = seatorch::kernels;
using seatorch::core::Rng;

namespace {

std::vector<float> random_values(std::size_t n, double lo, double hi, Rng& rng) {
  std::vector<float> values(n);
  for (float& v : values) v = static_cast<float>(rng.uniform(lo, hi));
  return values;
}

// The same floats, bit for bit, naming the first element that differs.
void require_same_bits(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  REQUIRE(got.size() == want.size());
  if (const std::optional<std::size_t> i = seatorch::test::first_bit_difference(got, want)) {
    FAIL(what << "[" << *i << "] is " << std::hexfloat << got[*i] << ", the reference gives " << want[*i]);
  }
}

struct Buffers {
  std::vector<float> p, g, first, second;  // (n) each: the parameter, its gradient and two state buffers
};

Buffers random_buffers(std::size_t n, Rng& rng) {
  Buffers b{random_values(n, -1, 1, rng), random_values(n, -0.1, 0.1, rng), random_values(n, -0.05, 0.05, rng),
            random_values(n, 0, 0.01, rng)};
  // Zeros where the loops could divide by them or take their square root.
  for (std::size_t i = 0; i < n; i += 5) b.second[i] = 0.0f;
  for (std::size_t i = 0; i < n; i += 7) b.g[i] = 0.0f;
  return b;
}

constexpr std::size_t kLengths[] = {1, 7, 8, 9, 16, 33, 1000};

// An Adam step over b's buffers, with weight decay of one kind or the other (or none) and
// coefficients of every order of magnitude.
k::AdamUpdate adam_step(Buffers& b, bool decoupled, bool l2) {
  return k::AdamUpdate{.p = b.p.data(),
                       .g = b.g.data(),
                       .m = b.first.data(),
                       .v = b.second.data(),
                       .wd = 0.01f,
                       .shrink = 0.9999f,
                       .b1 = 0.9f,
                       .b2 = 0.999f,
                       .one_minus_b1 = 0.1f,
                       .one_minus_b2 = 0.001f,
                       .correction2_sqrt = 0.0447f,
                       .neg_step_size = -0.0123f,
                       .eps = 1e-8f,
                       .decoupled = decoupled,
                       .l2 = l2};
}

}  // namespace

TEST_CASE("every SGD loop build matches the reference bit for bit", "[kernels]") {
  Rng rng(5);
  for (const k::UpdateKernel& kernel : k::update_kernels()) {
    for (const std::size_t n : kLengths) {
      for (const std::size_t begin : {std::size_t{0}, n / 3}) {
        for (const float wd : {0.0f, 0.01f}) {
          for (const float mu : {0.0f, 0.9f}) {
            for (const bool first : {false, true}) {
              for (const bool nesterov : {false, true}) {
                if (nesterov && mu == 0.0f) continue;
                INFO("kernel " << kernel.name << ", n " << n << ", from " << begin << ", wd " << wd << ", momentum "
                               << mu << ", first " << first << ", nesterov " << nesterov);
                const Buffers start = random_buffers(n, rng);
                Buffers want = start;
                Buffers got = start;
                auto update = [&](Buffers& b) {
                  return k::SgdUpdate{.p = b.p.data(),
                                      .g = b.g.data(),
                                      .b = b.first.data(),
                                      .wd = wd,
                                      .mu = mu,
                                      .keep = 0.75f,
                                      .neg_lr = -0.05f,
                                      .first = first,
                                      .nesterov = nesterov};
                };
                k::sgd_update_ref(update(want), begin, n);
                kernel.sgd(update(got), begin, n);
                require_same_bits(got.p, want.p, "parameter");
                require_same_bits(got.first, want.first, "momentum buffer");
              }
            }
          }
        }
      }
    }
  }
}

TEST_CASE("every Adam loop build matches the reference bit for bit", "[kernels]") {
  Rng rng(6);
  struct Decay {
    bool decoupled, l2;
  };
  for (const k::UpdateKernel& kernel : k::update_kernels()) {
    for (const std::size_t n : kLengths) {
      for (const std::size_t begin : {std::size_t{0}, n / 3}) {
        for (const Decay decay : {Decay{false, false}, Decay{true, false}, Decay{false, true}}) {
          INFO("kernel " << kernel.name << ", n " << n << ", from " << begin << ", decoupled " << decay.decoupled
                         << ", l2 " << decay.l2);
          const Buffers start = random_buffers(n, rng);
          Buffers want = start;
          Buffers got = start;
          k::adam_update_ref(adam_step(want, decay.decoupled, decay.l2), begin, n);
          kernel.adam(adam_step(got, decay.decoupled, decay.l2), begin, n);
          require_same_bits(got.p, want.p, "parameter");
          require_same_bits(got.first, want.first, "first moment");
          require_same_bits(got.second, want.second, "second moment");
        }
      }
    }
  }
}

namespace {

// A state value as the loops store it: what a CPU in flush-to-zero mode would keep.
float flushed(float x) { return std::fpclassify(x) == FP_SUBNORMAL ? 0.0f : x; }

// PyTorch's Adam (no weight decay) on one element, each of its tensor ops one float
// operation, written out apart from the loops; the moments stored flushed.
void adam_as_pytorch(const k::AdamUpdate& u, std::size_t i) {
  const float gi = u.g[i];
  u.m[i] = flushed(u.m[i] * u.b1 + u.one_minus_b1 * gi);
  u.v[i] = flushed(u.v[i] * u.b2 + u.one_minus_b2 * gi * gi);
  const float denom = std::sqrt(u.v[i]) / u.correction2_sqrt + u.eps;
  u.p[i] = u.p[i] + u.neg_step_size * u.m[i] / denom;
}

}  // namespace

TEST_CASE("every optimizer loop build stores a state that decays into the subnormals as zero", "[kernels]") {
  // Under a zero gradient a momentum decays by mu each step; in plain IEEE arithmetic it
  // would stick at the smallest subnormals (0.9 * 2^-149 rounds back to 2^-149).
  const float smallest_normal = std::numeric_limits<float>::min();
  const std::vector<float> start{smallest_normal * 1.05f, smallest_normal * 1.2f, 0x1p-149f * 3.0f, -0x1p-140f, 0.5f};
  for (const k::UpdateKernel& kernel : k::update_kernels()) {
    INFO("kernel " << kernel.name);
    const std::size_t n = start.size();
    std::vector<float> p(n, 0.25f), g(n, 0.0f), b = start, m = start, v = start;
    std::vector<float> want_b(n), want_m(n), want_v(n);
    for (std::size_t i = 0; i < n; ++i) {
      want_b[i] = flushed(start[i] * 0.9f);
      want_m[i] = flushed(start[i] * 0.9f);
      want_v[i] = flushed(start[i] * 0.999f);
    }
    kernel.sgd({.p = p.data(), .g = g.data(), .b = b.data(), .mu = 0.9f, .keep = 1.0f, .neg_lr = -0.1f}, 0, n);
    kernel.adam({.p = p.data(),
                 .g = g.data(),
                 .m = m.data(),
                 .v = v.data(),
                 .shrink = 1.0f,
                 .b1 = 0.9f,
                 .b2 = 0.999f,
                 .one_minus_b1 = 0.1f,
                 .one_minus_b2 = 0.001f,
                 .correction2_sqrt = 1.0f,
                 .neg_step_size = -0.001f,
                 .eps = 1e-8f},
                0, n);
    require_same_bits(b, want_b, "momentum buffer");
    require_same_bits(m, want_m, "first moment");
    require_same_bits(v, want_v, "second moment");
    // The parameters of the tiny states did not move: their steps were below half an ulp.
    for (std::size_t i = 0; i + 1 < n; ++i) {
      if (p[i] != 0.25f) FAIL("parameter[" << i << "] is " << std::hexfloat << p[i] << ", not 0.25");
    }
    CHECK(want_b[0] == 0.0f);  // the oracle itself: 1.05 * 0.9 of the smallest normal is subnormal
    CHECK(want_b[1] == smallest_normal * 1.2f * 0.9f);
  }
}

TEST_CASE("every Adam loop build is PyTorch's operations for moments of every exponent", "[kernels]") {
  // Second moments over the whole positive float range, subnormals and the ends included
  // (b2 = 1 and 1 - b2 = 0 keep each one as it is), so that the square roots and quotients
  // cover every exponent; bias corrections from Adam's first step to its ten-thousandth.
  Rng rng(7);
  constexpr std::size_t kValues = 4096;
  std::vector<float> v(kValues);
  const std::uint32_t edges[] = {0x00000000, 0x00000001, 0x007fffff, 0x00800000, 0x3f800000, 0x7f7fffff};
  for (std::size_t i = 0; i < kValues; ++i) {
    v[i] = std::bit_cast<float>(i < std::size(edges) ? edges[i] : static_cast<std::uint32_t>(rng.below(0x7f800000)));
  }
  std::vector<float> divisors{1.0f};
  for (int step = 1; step <= 10000; step = step < 20 ? step + 1 : step * 5 / 4) {
    for (const double b2 : {0.999, 0.99}) divisors.push_back(static_cast<float>(std::sqrt(1.0 - std::pow(b2, step))));
  }
  for (const k::UpdateKernel& kernel : k::update_kernels()) {
    for (const float c : divisors) {
      INFO("kernel " << kernel.name << ", bias correction " << c);
      Buffers want{random_values(kValues, -1, 1, rng), random_values(kValues, -0.1, 0.1, rng),
                   random_values(kValues, -0.05, 0.05, rng), v};
      Buffers got = want;
      // No weight decay; the second moments kept as they are (b2 1), so that each update
      // divides by the chosen v over the bias correction c, with an eps too small to matter.
      auto update = [&](Buffers& b) {
        k::AdamUpdate u = adam_step(b, false, false);
        u.b2 = 1.0f;
        u.one_minus_b2 = 0.0f;
        u.correction2_sqrt = c;
        u.eps = 1e-30f;
        return u;
      };
      const k::AdamUpdate oracle = update(want);
      for (std::size_t i = 0; i < kValues; ++i) adam_as_pytorch(oracle, i);
      kernel.adam(update(got), 0, kValues);
      require_same_bits(got.p, want.p, "parameter");
      require_same_bits(got.first, want.first, "first moment");
      require_same_bits(got.second, want.second, "second moment");
    }
  }
}

// Figures for docs/DECISIONS.md (entries 44 and 73): not a test that runs by default (tag
// [.]); run
//   taskset -c 1 build/release/tests/seatorch_tests "[optimizer-bench]"
// Each build's SGD (momentum) and Adam steps over the default model's parameters, the median
// of kSteps calls each, and its buffers after them against the reference's, bit for bit.
TEST_CASE("optimizer loop builds timed over the default model's parameters", "[.][optimizer-bench]") {
  constexpr std::size_t kParameters = 235146;  // 784-256-128-10
  constexpr std::size_t kSteps = 200;
  Rng rng(8);
  const Buffers start = random_buffers(kParameters, rng);
  std::optional<Buffers> ref_sgd, ref_adam;  // the reference's buffers after kSteps steps
  for (const k::UpdateKernel& kernel : k::update_kernels()) {
    Buffers sgd = start;
    Buffers adam = start;
    const k::SgdUpdate sgd_step{
        .p = sgd.p.data(), .g = sgd.g.data(), .b = sgd.first.data(), .mu = 0.9f, .keep = 1.0f, .neg_lr = -0.1f};
    const k::AdamUpdate adam_update = adam_step(adam, false, false);  // no weight decay, as the default recipe
    // Microseconds of each call, its median printed.
    const auto median_us = [](auto&& step) {
      std::vector<double> us(kSteps);  // (kSteps)
      for (double& t : us) {
        const auto begin = std::chrono::steady_clock::now();
        step();
        t = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - begin).count();
      }
      std::nth_element(us.begin(), us.begin() + kSteps / 2, us.end());
      return us[kSteps / 2];
    };
    const double sgd_us = median_us([&] { kernel.sgd(sgd_step, 0, kParameters); });
    const double adam_us = median_us([&] { kernel.adam(adam_update, 0, kParameters); });
    std::cout << kernel.name << ": SGD " << sgd_us << " us, Adam " << adam_us << " us per step over " << kParameters
              << " parameters (median of " << kSteps << ")\n";
    if (!ref_sgd) {
      ref_sgd = sgd;
      ref_adam = adam;
      continue;
    }
    INFO("kernel " << kernel.name);
    require_same_bits(sgd.p, ref_sgd->p, "SGD parameter");
    require_same_bits(sgd.first, ref_sgd->first, "momentum");
    require_same_bits(adam.p, ref_adam->p, "Adam parameter");
    require_same_bits(adam.first, ref_adam->first, "first moment");
    require_same_bits(adam.second, ref_adam->second, "second moment");
  }
}
