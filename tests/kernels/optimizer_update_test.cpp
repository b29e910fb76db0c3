// The optimizer loops: every build this CPU runs against the reference, bit for bit, for
// every combination of the options the loops branch on, on lengths around the vector widths
// and on ranges that start inside the parameter. (That the reference follows PyTorch is
// train/optimizer_test.cpp's business, against PyTorch's own numbers.)
#include "seatorch/kernels/optimizer_update.hpp"

#include "seatorch/core/rng.hpp"

#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
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
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::bit_cast<std::uint32_t>(got[i]) != std::bit_cast<std::uint32_t>(want[i])) {
      FAIL(what << "[" << i << "] is " << got[i] << ", the reference gives " << want[i]);
    }
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
                  return k::SgdUpdate{b.p.data(), b.g.data(), b.first.data(), wd, mu, 0.75f, -0.05f, first, nesterov};
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
          auto update = [&](Buffers& b) {
            return k::AdamUpdate{b.p.data(), b.g.data(),      b.first.data(), b.second.data(), 0.01f,   0.9999f,
                                 0.9f,       0.999f,          0.1f,           0.001f,          0.0447f, -0.0123f,
                                 1e-8f,      decay.decoupled, decay.l2};
          };
          k::adam_update_ref(update(want), begin, n);
          kernel.adam(update(got), begin, n);
          require_same_bits(got.p, want.p, "parameter");
          require_same_bits(got.first, want.first, "first moment");
          require_same_bits(got.second, want.second, "second moment");
        }
      }
    }
  }
}
