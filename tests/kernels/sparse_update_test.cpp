// The sparse weight gradient handed to an optimizer update (SparseMatmulArgs::update) against
// the two steps it replaces: the same kernel's gradient stored, then the reference update
// loop over all of it. Every kernel, SGD and Adam, plain rows and panels, one to three
// threads: the parameter and its state must come out bit for bit.
#include "../same_bits.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/core/rng.hpp"
#include "seatorch/kernels/matmul.hpp"
#include "seatorch/kernels/optimizer_update.hpp"
#include "seatorch/kernels/sparse_matmul.hpp"

#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

namespace k = seatorch::kernels;

namespace {

std::vector<float> random_values(std::size_t count, double lo, double hi, seatorch::core::Rng& rng) {
  std::vector<float> v(count);
  for (float& x : v) x = static_cast<float>(rng.uniform(lo, hi));
  return v;
}

// A parameter and its optimizer state: two buffers (SGD's momentum in `first`; Adam's moments).
struct State {
  std::vector<float> p, first, second;  // (k * n) each
};

void require_same_bits(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  if (const std::optional<std::size_t> i = seatorch::test::first_bit_difference(got, want)) {
    FAIL(what << "[" << *i << "] is " << got[*i] << ", the stored gradient and the reference loop give " << want[*i]);
  }
  SUCCEED();
}

// The step as an update of `s` by the gradient g (all of it), through the reference loops.
struct Step {
  bool adam = false;
  k::SgdUpdate sgd;
  k::AdamUpdate adam_update;

  void bind(State& s, const float* g) {
    sgd.p = adam_update.p = s.p.data();
    sgd.g = adam_update.g = g;
    sgd.b = s.first.data();
    adam_update.m = s.first.data();
    adam_update.v = s.second.data();
  }
  [[nodiscard]] k::BlockUpdate block() const {
    return adam ? k::BlockUpdate{nullptr, &adam_update} : k::BlockUpdate{&sgd, nullptr};
  }
};

std::vector<Step> steps() {
  std::vector<Step> all;
  for (const bool first : {true, false}) {
    Step s;
    s.sgd = {nullptr, nullptr, nullptr, 1e-4f, 0.9f, 1.0f, -0.05f, first, !first};
    all.push_back(s);
  }
  Step adam;
  adam.adam = true;
  adam.adam_update = {nullptr, nullptr, nullptr, nullptr, 0.01f, 0.9999f, 0.9f, 0.999f,
                      0.1f,    0.001f,  0.0447f, -0.02f,  1e-8f, true,    false};
  all.push_back(adam);
  return all;
}

}  // namespace

TEST_CASE("a sparse weight gradient handed to its update is the stored gradient's update, bit for bit", "[kernels]") {
  struct Case {
    std::size_t m, n, k, width;  // A (m, k) by rows, B (m, n); C (k, n) in panels of `width` (0: rows)
  };
  // The 784-128-10 model's and the default model's first layers, and odd shapes: C's rows not
  // whole groups of 32, columns not whole registers, more than one column block.
  const std::vector<Case> cases{{64, 128, 784, 0}, {128, 256, 784, 128}, {37, 70, 300, 0},
                                {9, 200, 47, 0},   {20, 48, 33, 16},     {5, 5, 40, 0}};
  seatorch::core::Rng rng(23);
  const std::string before(k::selected_kernel());
  for (const std::string& kernel : k::kernel_names()) {
    k::select_kernel(kernel);
    for (const Case& c : cases) {
      std::vector<float> a = random_values(c.m * c.k, -1, 1, rng);
      for (float& x : a) x = x > 0.6f ? x : 0.0f;  // a fifth nonzero
      const std::vector<float> b = random_values(c.m * c.n, -1, 1, rng);
      const State start{random_values(c.k * c.n, -1, 1, rng), random_values(c.k * c.n, -0.05, 0.05, rng),
                        random_values(c.k * c.n, 0, 0.01, rng)};
      for (Step step : steps()) {
        for (const std::size_t threads : {1, 2, 3}) {
          INFO("kernel " << kernel << ", A " << c.m << "x" << c.k << ", B " << c.m << "x" << c.n << ", panels "
                         << c.width << ", "
                         << (step.adam        ? "Adam"
                             : step.sgd.first ? "SGD, first"
                                              : "SGD, Nesterov")
                         << ", " << threads << " thread(s)");
          const seatorch::core::ScopedThreads count(threads);
          k::SparseCopies rows;
          k::compress_rows(a.data(), c.m, c.k, c.k, k::sparse_copies(), rows);
          auto product = [&](float* out, const k::BlockUpdate* update) {
            const k::SparseMatmulArgs args{rows.data(), b.data(), c.n,   k::Transpose::kNo, c.n,   out,
                                           c.n,         false,    false, rows.size(),       update};
            if (c.width == 0) {
              k::sparse_matmul_tn(args);
            } else {
              k::sparse_matmul_tn_panels(args, c.width);
            }
          };
          // The oracle: the gradient stored, then the reference loop over the whole parameter.
          std::vector<float> g(c.k * c.n, std::nanf(""));
          product(g.data(), nullptr);
          State want = start;
          step.bind(want, g.data());
          if (step.adam) {
            k::adam_update_ref(step.adam_update, 0, g.size());
          } else {
            k::sgd_update_ref(step.sgd, 0, g.size());
          }
          State got = start;
          step.bind(got, nullptr);
          const k::BlockUpdate update = step.block();
          product(got.p.data(), &update);
          require_same_bits(got.p, want.p, "parameter");
          require_same_bits(got.first, want.first, step.adam ? "first moment" : "momentum");
          require_same_bits(got.second, want.second, "second moment");
        }
      }
    }
  }
  k::select_kernel(before);
}
