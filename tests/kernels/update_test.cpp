// The update loops this CPU runs against the baseline reference, bit for bit: SGD with and
// without momentum, dampening, Nesterov and weight decay, Adam with L2 and decoupled weight
// decay, on lengths that leave every tail, and on a range inside a parameter.
#include "seatorch/kernels/update.hpp"

#include "seatorch/core/rng.hpp"

#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <vector>

namespace k = seatorch::kernels;

namespace {

std::vector<float> uniform(std::size_t n, seatorch::core::Rng& rng, double lo = -1.0, double hi = 1.0) {
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(rng.uniform(lo, hi));
  return v;
}

void require_same_bits(const std::vector<float>& got, const std::vector<float>& expected, const char* what) {
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO(what << " element " << i << ": " << got[i] << " vs the reference's " << expected[i] << " (kernel "
              << k::update_kernel() << ")");
    REQUIRE(std::bit_cast<std::uint32_t>(got[i]) == std::bit_cast<std::uint32_t>(expected[i]));
  }
}

}  // namespace

TEST_CASE("the SGD update loop gives the reference's bits", "[kernels]") {
  seatorch::core::Rng rng(11);
  for (const std::size_t n : {1, 7, 8, 9, 31, 100}) {
    for (int variant = 0; variant < 5; ++variant) {
      const std::vector<float> g = uniform(n, rng);
      std::vector<float> p = uniform(n, rng);
      std::vector<float> b = uniform(n, rng);
      std::vector<float> p_ref = p;
      std::vector<float> b_ref = b;
      k::SgdUpdate u{.wd = variant == 1 ? 0.01f : 0.0f,
                     .mu = variant == 0 ? 0.0f : 0.9f,
                     .keep = variant == 3 ? 0.75f : 1.0f,
                     .neg_lr = -0.05f,
                     .first = variant == 2,
                     .nesterov = variant == 4};
      u.g = g.data();
      k::SgdUpdate r = u;
      u.p = p.data();
      u.b = b.data();
      r.p = p_ref.data();
      r.b = b_ref.data();
      const std::size_t begin = n > 8 ? 3 : 0;  // a range that starts inside the parameter
      k::sgd_update(u, begin, n);
      k::sgd_update_ref(r, begin, n);
      INFO("length " << n << ", variant " << variant);
      require_same_bits(p, p_ref, "parameter");
      require_same_bits(b, b_ref, "momentum");
    }
  }
}

TEST_CASE("the Adam update loop gives the reference's bits", "[kernels]") {
  seatorch::core::Rng rng(12);
  for (const std::size_t n : {1, 7, 8, 9, 31, 100}) {
    for (int variant = 0; variant < 3; ++variant) {
      const std::vector<float> g = uniform(n, rng);
      std::vector<float> p = uniform(n, rng);
      std::vector<float> m = uniform(n, rng, -0.1, 0.1);
      std::vector<float> v = uniform(n, rng, 0.0, 0.01);
      std::vector<float> p_ref = p;
      std::vector<float> m_ref = m;
      std::vector<float> v_ref = v;
      k::AdamUpdate u{.wd = 0.01f,
                      .shrink = 0.9999f,
                      .b1 = 0.9f,
                      .b2 = 0.999f,
                      .one_minus_b1 = 0.1f,
                      .one_minus_b2 = 0.001f,
                      .correction2_sqrt = 0.0447f,
                      .neg_step_size = -0.02f,
                      .eps = 1e-8f,
                      .decoupled = variant == 1,
                      .l2 = variant == 2};
      u.g = g.data();
      k::AdamUpdate r = u;
      u.p = p.data();
      u.m = m.data();
      u.v = v.data();
      r.p = p_ref.data();
      r.m = m_ref.data();
      r.v = v_ref.data();
      const std::size_t begin = n > 8 ? 5 : 0;
      k::adam_update(u, begin, n);
      k::adam_update_ref(r, begin, n);
      INFO("length " << n << ", variant " << variant);
      require_same_bits(p, p_ref, "parameter");
      require_same_bits(m, m_ref, "first moment");
      require_same_bits(v, v_ref, "second moment");
    }
  }
}
