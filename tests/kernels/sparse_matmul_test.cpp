// The sparse rows and the sparse product. The oracle of the rows is a plain loop over the
// dense matrix (and the references, sparse_rows.cpp, are checked against it too); the oracle of each kernel's sparse product is the same kernel's dense product
// of the same matrix, bit for bit (sparse_matmul.hpp promises it for finite B): every form
// (op(B) stored either way, C plain or transposed, accumulating or not), edge sizes along
// each axis, depths that cross the kernels' passes, and rows with no nonzeros at all; and the
// fused epilogue against the same kernel's product with the bias rows and the clamp around it.
// Uses only the dependency-free kernel API, so the AArch64 cross test runs it too.
#include "../same_bits.hpp"
#include "seatorch/core/rng.hpp"
#include "seatorch/kernels/kernel_registry.hpp"
#include "seatorch/kernels/sparse_rows.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <utility>
#include <vector>

namespace k = seatorch::kernels;

namespace {

// A (rows, ld) matrix with (rows, cols) in use: a share `density` of the entries uniform in
// [-1, 1), the rest +0 or -0, and every fifth row all zeros.
std::vector<float> sparse_matrix(std::size_t rows, std::size_t cols, std::size_t ld, double density,
                                 seatorch::core::Rng& rng) {
  std::vector<float> a(rows * ld, 7.0f);  // padding past cols stays 7: never read
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t p = 0; p < cols; ++p) {
      const bool kept = i % 5 != 4 && rng.uniform(0.0, 1.0) < density;
      a[i * ld + p] = kept ? static_cast<float>(rng.uniform(-1.0, 1.0)) : (p % 3 == 0 ? -0.0f : 0.0f);
    }
  }
  return a;
}

// The definition: row i's entries, in increasing column, where a(i, p) != 0, stored from
// s.begin(i) on.
void check_rows(const k::SparseRows& s, const float* a, std::size_t rows, std::size_t cols, std::size_t ld) {
  REQUIRE(s.rows == rows);
  REQUIRE(s.cols == cols);
  std::size_t nonzeros = 0;
  for (std::size_t i = 0; i < rows; ++i) {
    INFO("row " << i);
    std::size_t e = s.begin(i);
    for (std::size_t p = 0; p < cols; ++p) {
      const float x = a[i * ld + p];
      if (!(x != 0.0f)) continue;
      INFO("entry " << e - s.begin(i) << " at column " << p);
      REQUIRE(e < s.end(i));
      REQUIRE(s.column[e] == p);
      CHECK(std::bit_cast<std::uint32_t>(s.value[e]) == std::bit_cast<std::uint32_t>(x));
      ++e;
    }
    CHECK(e == s.end(i));
    nonzeros += e - s.begin(i);
  }
  CHECK(s.nonzeros() == nonzeros);
}

// The same (rows, cols) matrix transposed, with row stride rows.
std::vector<float> transposed(const std::vector<float>& a, std::size_t rows, std::size_t cols, std::size_t ld) {
  std::vector<float> t(cols * rows);
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t p = 0; p < cols; ++p) t[p * rows + i] = a[i * ld + p];
  }
  return t;
}

using Compress = void (*)(const float* a, std::size_t ld, std::size_t i0, std::size_t i1, k::SparseRows& out);

// out's rows filled by `compress` in two ranges, [0, cut) and [cut, rows), last first: each
// range must fill its own rows whatever the other did.
void compress_in_two(Compress compress, const float* a, std::size_t ld, std::size_t cut, k::SparseRows& out) {
  compress(a, ld, cut, out.rows, out);
  compress(a, ld, 0, cut, out);
}

}  // namespace

TEST_CASE("every kernel's compression and the transpose keep exactly the nonzeros in order", "[kernels]") {
  seatorch::core::Rng rng(41);
  for (const std::size_t cols : {1, 15, 16, 17, 31, 33, 64, 784}) {
    for (const std::size_t rows : {1, 9, 64}) {
      for (const double density : {0.0, 0.2, 1.0}) {
        const std::size_t ld = cols + 3;
        std::vector<float> a = sparse_matrix(rows, cols, ld, density, rng);
        a[(rows / 2) * ld + cols / 2] = std::numeric_limits<float>::quiet_NaN();  // unequal to 0: kept
        const std::vector<float> at = transposed(a, rows, cols, ld);
        INFO(rows << "x" << cols << ", density " << density);
        k::SparseRows s;
        k::shape_sparse(rows, cols, s);
        // Room for the whole row, in an odd number of 16-float lines.
        CHECK(s.stride >= cols);
        CHECK(s.stride % k::kSparseLanes == 0);
        CHECK((s.stride / k::kSparseLanes) % 2 == 1);
        k::compress_rows_ref(a.data(), ld, 0, rows, s);
        check_rows(s, a.data(), rows, cols, ld);
        // The transpose of the rows, whole and in three ranges of its rows cut anywhere (not
        // only at 16): one from the start, one to the end, one with neither. Each range is
        // rows p0.. of the transpose, in a matrix of its own.
        for (const auto& [p0, p1] :
             {std::pair{std::size_t{0}, cols}, {0, cols / 3}, {cols / 3, 2 * cols / 3}, {2 * cols / 3, cols}}) {
          INFO("columns " << p0 << ".." << p1);
          k::SparseRows t;
          k::shape_sparse(p1 - p0, rows, t);
          k::transpose_sparse(s, p0, p1, t);
          check_rows(t, at.data() + p0 * rows, p1 - p0, rows, rows);
        }
        for (const k::KernelInfo& kernel : k::available_kernels()) {
          INFO("kernel " << kernel.name);
          k::shape_sparse(rows, cols, s);
          compress_in_two(kernel.compress_rows, a.data(), ld, rows / 3, s);
          check_rows(s, a.data(), rows, cols, ld);
        }
      }
    }
  }
}

TEST_CASE("each kernel's sparse product is its dense product's bits", "[kernels]") {
  struct Case {
    std::size_t m, n, k;
    bool banded = false;  // rows lit only in bands, as a digit is (see below)
  };
  // n and m across register and block edges; k across the sums cut at 512 and the chunks of
  // kc rows that the kc-256 kernels walk each sum in (784 is the MLP's depth, 512 + 272; 1100
  // takes two sums of 550); m across the driver's groups of rows (kSparseGroup).
  const std::vector<Case> cases = {{1, 1, 1},      {3, 17, 5},           {16, 33, 40},         {7, 128, 784},
                                   {64, 130, 300}, {20, 8, 1100},        {33, 67, 257},        {64, 10, 784},
                                   {5, 200, 0},    {40, 128, 784, true}, {17, 130, 1100, true}};
  seatorch::core::Rng rng(42);
  for (const k::KernelInfo& kernel : k::available_kernels()) {
    for (const Case& c : cases) {
      for (const bool tb : {false, true}) {
        for (const bool transposed_c : {false, true}) {
          for (const bool accumulate : {false, true}) {
            INFO("kernel " << kernel.name << ", " << c.m << "x" << c.n << "x" << c.k << (tb ? " B stored (n, k)" : "")
                           << (transposed_c ? ", C transposed" : "") << (accumulate ? ", accumulating" : ""));
            const std::size_t lda = c.k + 2;
            std::vector<float> a = sparse_matrix(c.m, c.k, lda, 0.2, rng);  // (m, lda)
            if (c.banded) {
              // Whole chunks of the depth with nothing in them (the `avx512` kernel walks a
              // wide block's depth in chunks of 64 rows of op(B), sparse_driver.hpp): even rows
              // dark before column 300, odd rows dark in [100, 400) and [600, 700), every
              // third row dark in [512, 650) (the second pass's first chunks, after entries in
              // the first pass), and every fifth row dark from 130 on, so rows skip chunks
              // before, between and after their lit ones.
              for (std::size_t i = 0; i < c.m; ++i) {
                for (std::size_t p = 0; p < c.k; ++p) {
                  const bool dark = (i % 2 == 0 && p < 300) ||
                                    (i % 2 == 1 && ((p >= 100 && p < 400) || (p >= 600 && p < 700))) ||
                                    (i % 3 == 2 && p >= 512 && p < 650) || (i % 5 == 0 && p >= 130);
                  if (dark) a[i * lda + p] = 0.0f;
                }
              }
            }
            const std::size_t ldb = (tb ? c.k : c.n) + 3;
            std::vector<float> b((tb ? c.n : c.k) * ldb);
            for (float& x : b) x = static_cast<float>(rng.uniform(-1.0, 1.0));
            const std::size_t ldc = (transposed_c ? c.m : c.n) + 1;
            std::vector<float> c0((transposed_c ? c.n : c.m) * ldc);
            for (float& x : c0) x = static_cast<float>(rng.uniform(-1.0, 1.0));

            k::SparseRows rows;
            k::shape_sparse(c.m, c.k, rows);
            k::compress_rows_ref(a.data(), lda, 0, c.m, rows);
            std::vector<float> got = c0;
            kernel.sparse_matmul(
                {&rows, b.data(), ldb, k::Transpose{tb}, c.n, got.data(), ldc, transposed_c, accumulate}, {});
            // The dense twin: C = A op(B), or Cᵀ = op(B)ᵀ Aᵀ with the roles of A and B swapped.
            std::vector<float> want = c0;
            if (!transposed_c) {
              kernel.matmul({{c.m, c.n, c.k},
                             a.data(),
                             lda,
                             k::Transpose::kNo,
                             b.data(),
                             ldb,
                             k::Transpose{tb},
                             want.data(),
                             ldc,
                             accumulate},
                            {});
            } else {
              kernel.matmul({{c.n, c.m, c.k},
                             b.data(),
                             ldb,
                             k::Transpose{!tb},
                             a.data(),
                             lda,
                             k::Transpose::kYes,
                             want.data(),
                             ldc,
                             accumulate},
                            {});
            }
            const auto diff = seatorch::test::first_bit_difference(got, want);
            if (diff) {
              FAIL_CHECK("C[" << *diff / ldc << ", " << *diff % ldc << "] = " << std::setprecision(9) << got[*diff]
                              << ", the dense product gives " << want[*diff]);
            } else {
              SUCCEED();
            }
          }
        }
      }
    }
  }
}

// The epilogue fused into the sparse tile (the bias on the first pass, the clamp on the
// last) against the same kernel's product started from the bias rows and clamped after it,
// bit for bit: depths of one pass and of several, a wide block's chunks (banded rows), a
// partial last register, no depth at all. Row 1 holds a NaN and the bias a -0, which the
// clamp keeps.
TEST_CASE("each kernel's sparse product applies a fused epilogue with the unfused bits", "[kernels]") {
  struct Case {
    std::size_t m, n, k;
  };
  const std::vector<Case> cases = {{3, 17, 5}, {64, 128, 784}, {20, 40, 1100}, {33, 130, 300}, {5, 200, 0}};
  seatorch::core::Rng rng(83);
  for (const Case& c : cases) {
    const std::size_t lda = c.k + 1;
    std::vector<float> a = sparse_matrix(c.m, c.k, lda, 0.2, rng);  // (m, lda)
    if (c.k > 0) a[1 * lda + c.k / 2] = std::numeric_limits<float>::quiet_NaN();
    for (std::size_t i = 0; i < c.m; i += 2) {  // whole chunks of the depth dark in even rows
      for (std::size_t p = 0; p < std::min<std::size_t>(c.k, 300); ++p) a[i * lda + p] = 0.0f;
    }
    const std::size_t ldb = c.k + 3;
    std::vector<float> b(c.n * ldb);  // (n, ldb): B stored (n, k), as linear's weight
    for (float& x : b) x = static_cast<float>(rng.uniform(-1.0, 1.0));
    std::vector<float> bias(c.n);
    for (float& x : bias) x = static_cast<float>(rng.uniform(-1.0, 1.0));
    bias[0] = -0.0f;
    const std::size_t ldc = c.n + 2;
    std::vector<float> c0(c.m * ldc);
    for (float& x : c0) x = static_cast<float>(rng.uniform(-1.0, 1.0));
    k::SparseRows rows;
    k::shape_sparse(c.m, c.k, rows);
    k::compress_rows_ref(a.data(), lda, 0, c.m, rows);
    for (const k::KernelInfo& kernel : k::available_kernels()) {
      for (const bool biased : {false, true}) {
        for (const bool relu : {false, true}) {
          INFO("kernel " << kernel.name << ", " << c.m << "x" << c.n << "x" << c.k << (biased ? ", bias" : "")
                         << (relu ? ", ReLU" : ""));
          const k::SparseMatmulArgs args{&rows, b.data(), ldb, k::Transpose::kYes, c.n, nullptr, ldc, false, false};
          std::vector<float> want = c0;
          k::SparseMatmulArgs unfused = args;
          unfused.c = want.data();
          if (biased) {
            for (std::size_t i = 0; i < c.m; ++i) std::copy(bias.begin(), bias.end(), want.begin() + i * ldc);
            unfused.accumulate = true;
          }
          kernel.sparse_matmul(unfused, {});
          for (std::size_t i = 0; i < c.m && relu; ++i) {
            for (std::size_t j = 0; j < c.n; ++j) want[i * ldc + j] = std::max(want[i * ldc + j], 0.0f);
          }
          std::vector<float> got = c0;
          k::SparseMatmulArgs fused = args;
          fused.c = got.data();
          kernel.sparse_matmul(fused, {biased ? bias.data() : nullptr, relu});
          if (const auto diff = seatorch::test::first_bit_difference(got, want)) {
            FAIL_CHECK("C[" << *diff / ldc << ", " << *diff % ldc << "] = " << std::setprecision(9) << got[*diff]
                            << ", unfused " << want[*diff]);
          } else {
            SUCCEED();
          }
        }
      }
    }
  }
}
