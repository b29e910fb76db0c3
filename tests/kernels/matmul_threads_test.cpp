// matmul() on several threads against the same kernel on one: each thread computes its own
// block of C over the whole depth, so every element must come out bit-identical, in every
// transpose form, for splits by columns (wide C) and by rows (the narrow weight gradient),
// even and uneven (the shares a slower core leaves its threads). The sparse weight gradient
// Aᵀ·B, split by rows of C, against the dense product on the same kernel.
#include "../same_bits.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/core/rng.hpp"
#include "seatorch/kernels/matmul.hpp"
#include "seatorch/kernels/sparse_matmul.hpp"

#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

namespace k = seatorch::kernels;

namespace {

struct Shape {
  std::size_t m, n, k;
};

std::vector<float> random_values(std::size_t count, seatorch::core::Rng& rng) {
  std::vector<float> v(count);
  for (float& x : v) x = static_cast<float>(rng.uniform(-1.0, 1.0));
  return v;
}

// Each thread's share of a split (one per thread).
using Split = std::vector<double>;

// C from one call of `kernel` split by `split`; C starts as `c0` (accumulate) or NaN.
std::vector<float> run(const std::string& kernel, const Split& split, const Shape& s, bool ta, bool tb, bool accumulate,
                       const std::vector<float>& a, const std::vector<float>& b, const std::vector<float>& c0) {
  const seatorch::core::ScopedThreads count(split.size());
  const seatorch::core::ScopedShares shares(split);
  std::vector<float> c = accumulate ? c0 : std::vector<float>(c0.size(), std::nanf(""));
  k::matmul_with(kernel, {{s.m, s.n, s.k},
                          a.data(),
                          ta ? s.m : s.k,
                          k::Transpose{ta},
                          b.data(),
                          tb ? s.k : s.n,
                          k::Transpose{tb},
                          c.data(),
                          s.n,
                          accumulate});
  return c;
}

}  // namespace

TEST_CASE("matmul on 2 and 3 threads, split evenly or not, is bit-identical to 1 thread, every kernel and form",
          "[kernels]") {
  const std::vector<Split> splits{{1, 1}, {1, 1, 1}, {0.3, 0.7}, {0.8, 0.2}, {0.15, 0.5, 0.35}};
  seatorch::core::Rng rng(7);
  // The MLP's products (forward, dX, dW and the 10-wide ones), and odd sizes past the grains.
  const std::vector<Shape> shapes{{64, 128, 784}, {128, 784, 64}, {128, 10, 64}, {512, 10, 256},
                                  {64, 784, 128}, {200, 333, 77}, {47, 129, 300}};
  for (const std::string& kernel : k::kernel_names()) {
    for (const Shape& s : shapes) {
      const std::vector<float> a = random_values(s.m * s.k, rng);
      const std::vector<float> b = random_values(s.k * s.n, rng);
      const std::vector<float> c0 = random_values(s.m * s.n, rng);
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          for (bool accumulate : {false, true}) {
            const std::vector<float> one = run(kernel, {1}, s, ta, tb, accumulate, a, b, c0);
            for (const Split& split : splits) {
              const std::vector<float> many = run(kernel, split, s, ta, tb, accumulate, a, b, c0);
              const std::optional<std::size_t> first = seatorch::test::first_bit_difference(many, one);
              INFO("kernel " << kernel << " " << s.m << "x" << s.n << "x" << s.k << " ta " << ta << " tb " << tb
                             << " accumulate " << accumulate << ", shares " << Catch::Detail::stringify(split));
              // The element goes into the failure itself: an INFO inside the `if` would be gone
              // (out of scope) by the time a check after it failed.
              if (first) {
                FAIL_CHECK("first difference C[" << *first / s.n << "," << *first % s.n << "]: " << many[*first]
                                                 << " against " << one[*first] << " on one thread");
              } else {
                SUCCEED();
              }
            }
          }
        }
      }
    }
  }
}

namespace {

// got holds want's entries, or the failure names the first that differs.
void expect_same_rows(const k::SparseRows& want, const k::SparseRows& got, const std::string& what) {
  REQUIRE(got.rows == want.rows);
  REQUIRE(got.count == want.count);
  for (std::size_t i = 0; i < want.rows; ++i) {
    for (std::size_t e = want.begin(i); e < want.end(i); ++e) {
      if (got.column[e] != want.column[e] || got.value[e] != want.value[e]) {
        FAIL(what << ": row " << i << " entry " << e - want.begin(i) << " is (" << got.column[e] << ", " << got.value[e]
                  << "), not (" << want.column[e] << ", " << want.value[e] << ")");
      }
    }
  }
}

}  // namespace

TEST_CASE("compress_rows fills every copy as the plain loop does, on 1-3 threads", "[kernels]") {
  seatorch::core::Rng rng(9);
  // A batch of digits' shape, and shapes whose rows and columns are no multiples of a register.
  const std::vector<Shape> shapes{{128, 784, 0}, {300, 200, 0}, {64, 37, 0}};
  for (const Shape& s : shapes) {
    std::vector<float> a = random_values(s.m * s.n, rng);
    for (float& x : a) x = x > 0.6f ? x : 0.0f;  // a fifth nonzero
    k::SparseRows want_rows;
    k::shape_sparse(s.m, s.n, want_rows);
    k::compress_rows_ref(a.data(), s.n, 0, s.m, want_rows);
    for (const std::size_t threads : {1, 2, 3}) {
      INFO(s.m << "x" << s.n << ", " << threads << " thread(s)");
      const seatorch::core::ScopedThreads count(threads);
      // One copy per thread, and more copies than threads (parts wrap around the threads).
      for (const std::size_t copies : {threads, threads + 1}) {
        k::SparseCopies rows_copies;
        k::compress_rows(a.data(), s.m, s.n, s.n, copies, rows_copies);
        REQUIRE(rows_copies.size() == copies);
        for (std::size_t c = 0; c < copies; ++c) {
          expect_same_rows(want_rows, rows_copies[c], "copy " + std::to_string(c) + " of " + std::to_string(copies));
        }
      }
    }
  }
}

TEST_CASE("sparse_matmul_tn on 1-3 threads, split evenly or not, is each kernel's dense Aᵀ·B or Bᵀ·A, bit for bit",
          "[kernels]") {
  const std::vector<Split> splits{{1}, {1, 1}, {1, 1, 1}, {0.3, 0.7}, {0.8, 0.2}, {0.15, 0.5, 0.35}};
  seatorch::core::Rng rng(11);
  // (m, n, k) of A (m, k) by rows and B (m, n): the default model's and the 784-128-10 model's
  // first-layer weight gradients, shapes past the grains, and one too small to split.
  const std::vector<Shape> shapes{{128, 256, 784}, {64, 128, 784}, {37, 70, 300}, {130, 33, 47}, {5, 16, 40}};
  const std::string before(k::selected_kernel());
  for (const std::string& kernel : k::kernel_names()) {
    k::select_kernel(kernel);
    for (const Shape& s : shapes) {
      std::vector<float> a = random_values(s.m * s.k, rng);
      for (float& x : a) x = x > 0.6f ? x : 0.0f;  // a fifth nonzero
      const std::vector<float> b = random_values(s.m * s.n, rng);
      const std::vector<float> c0 = random_values(s.k * s.n, rng);
      for (const bool transposed_c : {false, true}) {
        for (const bool accumulate : {false, true}) {
          // The oracle: the same kernel's dense product Lᵀ R, L and R both stored with m rows:
          // C (k, n) = Aᵀ B, or stored transposed, (n, k) = Bᵀ A.
          const std::vector<float>& left = transposed_c ? b : a;
          const std::vector<float>& right = transposed_c ? a : b;
          const std::size_t height = transposed_c ? s.n : s.k;  // of C as stored
          const std::size_t ldc = transposed_c ? s.k : s.n;
          std::vector<float> want = c0;
          k::matmul_with(kernel, {{height, ldc, s.m},
                                  left.data(),
                                  height,
                                  k::Transpose::kYes,
                                  right.data(),
                                  ldc,
                                  k::Transpose::kNo,
                                  want.data(),
                                  ldc,
                                  accumulate});
          for (const Split& split : splits) {
            const seatorch::core::ScopedThreads count(split.size());
            const seatorch::core::ScopedShares shares(split);
            k::SparseCopies rows;
            k::compress_rows(a.data(), s.m, s.k, s.k, split.size(), rows);
            std::vector<float> got = accumulate ? c0 : std::vector<float>(c0.size(), std::nanf(""));
            k::sparse_matmul_tn({rows.data(), b.data(), s.n, k::Transpose::kNo, s.n, got.data(), ldc, transposed_c,
                                 accumulate, rows.size()});
            INFO("kernel " << kernel << ", A " << s.m << "x" << s.k << ", B " << s.m << "x" << s.n
                           << (transposed_c ? ", C transposed" : "") << ", accumulate " << accumulate << ", shares "
                           << Catch::Detail::stringify(split));
            const std::optional<std::size_t> first = seatorch::test::first_bit_difference(got, want);
            if (first) {
              FAIL_CHECK("first difference C[" << *first / ldc << "," << *first % ldc << "]: " << got[*first]
                                               << " against " << want[*first] << " from the dense product");
            } else {
              SUCCEED();
            }
          }
        }
      }
    }
  }
  k::select_kernel(before);
}
