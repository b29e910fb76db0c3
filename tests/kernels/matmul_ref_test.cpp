// matmul_ref against a double-precision oracle on all transpose forms, strides and k = 0.
#include "seatorch/kernels/matmul.hpp"

#include "seatorch/core/rng.hpp"

#include <catch2/catch.hpp>

#include <vector>

namespace k = seatorch::kernels;

TEST_CASE("matmul_ref matches a double-precision oracle in every form", "[kernels]") {
  seatorch::core::Rng rng(9);
  constexpr double kTolerance = 1e-5;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (bool accumulate : {false, true}) {
        const std::size_t m = 5, n = 7, kk = 3, pad = 2;
        const std::size_t lda = (ta ? m : kk) + pad, ldb = (tb ? kk : n) + pad, ldc = n + pad;
        std::vector<float> a((ta ? kk : m) * lda), b((tb ? n : kk) * ldb), c(m * ldc);
        for (float& v : a) v = static_cast<float>(rng.uniform(-1, 1));
        for (float& v : b) v = static_cast<float>(rng.uniform(-1, 1));
        for (float& v : c) v = static_cast<float>(rng.uniform(-1, 1));
        const std::vector<float> c0 = c;
        k::matmul_ref(
            {{m, n, kk}, a.data(), lda, k::Transpose{ta}, b.data(), ldb, k::Transpose{tb}, c.data(), ldc, accumulate});
        for (std::size_t i = 0; i < m; ++i) {
          for (std::size_t j = 0; j < n; ++j) {
            double expected = accumulate ? c0[i * ldc + j] : 0.0;
            for (std::size_t p = 0; p < kk; ++p) {
              expected += static_cast<double>(ta ? a[p * lda + i] : a[i * lda + p]) *
                          static_cast<double>(tb ? b[j * ldb + p] : b[p * ldb + j]);
            }
            INFO("ta " << ta << " tb " << tb << " acc " << accumulate << " C[" << i << "," << j
                       << "] = " << c[i * ldc + j] << ", expected " << expected);
            REQUIRE(c[i * ldc + j] == Approx(expected).margin(kTolerance));
          }
        }
      }
    }
  }
}

TEST_CASE("matmul_ref with k = 0 zeroes C or leaves it when accumulating", "[kernels]") {
  std::vector<float> c{1.f, 2.f, 3.f, 4.f};
  k::matmul_ref({{2, 2, 0}, nullptr, 0, k::Transpose::kNo, nullptr, 2, k::Transpose::kNo, c.data(), 2, true});
  CHECK(c == std::vector<float>{1.f, 2.f, 3.f, 4.f});
  k::matmul_ref({{2, 2, 0}, nullptr, 0, k::Transpose::kNo, nullptr, 2, k::Transpose::kNo, c.data(), 2, false});
  CHECK(c == std::vector<float>{0.f, 0.f, 0.f, 0.f});
}
