// Every available matmul kernel against matmul_ref: every edge size 1..67 along each axis,
// random shapes up to 300, shapes that cross every cache block, all four transpose forms,
// accumulate on and off, padded (non-contiguous) rows, and k = 0; and, bit for bit, C's first
// rows or columns computed alone against the whole product, the fused epilogue against
// the same kernel's product with the bias rows and the clamp around it, and every kernel with
// a fused multiply-add against std::fma's sums cut at 512.
// Uses only the dependency-free kernel API, so the AArch64 cross test runs it too.
#include "../same_bits.hpp"
#include "seatorch/core/rng.hpp"
#include "seatorch/kernels/kernel_registry.hpp"
#include "seatorch/kernels/matmul.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <vector>

namespace k = seatorch::kernels;

namespace {

struct Case {
  std::size_t m, n, k;
  bool ta, tb, accumulate;
  std::size_t pad;  // extra floats at the end of every row of A, B and C
};

// op(A) (m, k) and op(B) (k, n) stored as the flags say, C (m, n), all with padded rows.
struct Problem {
  Case shape;
  std::size_t lda, ldb, ldc;
  std::vector<float> a;   // (k, lda) when ta, else (m, lda)
  std::vector<float> b;   // (n, ldb) when tb, else (k, ldb)
  std::vector<float> c0;  // (m, ldc): C before the call, padding included

  k::MatmulArgs args(const float* a_data, const float* b_data, float* c) const {
    return {{shape.m, shape.n, shape.k}, a_data, lda, k::Transpose{shape.ta}, b_data, ldb,
            k::Transpose{shape.tb},      c,      ldc, shape.accumulate};
  }
};

Problem make_problem(const Case& s, seatorch::core::Rng& rng) {
  Problem p{s, (s.ta ? s.m : s.k) + s.pad, (s.tb ? s.k : s.n) + s.pad, s.n + s.pad, {}, {}, {}};
  p.a.resize((s.ta ? s.k : s.m) * p.lda);
  p.b.resize((s.tb ? s.n : s.k) * p.ldb);
  p.c0.resize(s.m * p.ldc);
  for (std::vector<float>* v : {&p.a, &p.b, &p.c0}) {
    for (float& x : *v) x = static_cast<float>(rng.uniform(-1.0, 1.0));
  }
  return p;
}

// A kernel and the reference both sum k products in float, in different orders. Each sum's
// rounding error is below (k + 1) * eps * (sum of |a*b| + |c0|) (Higham, recursive
// summation), so two sums differ by at most twice that. Operands lie in [-1, 1), so the
// sum of |a*b| is at most k.
constexpr double kSumErrorFactor = 2.0;
double tolerance(std::size_t depth, double c0) {
  const double magnitude = static_cast<double>(depth) + std::fabs(c0);
  return kSumErrorFactor * static_cast<double>(depth + 1) * std::numeric_limits<float>::epsilon() * magnitude;
}

// Runs every available kernel on the problem and compares all of C, padding included
// (which must be left as it was), with the reference.
void check_all_kernels(const Problem& p) {
  const Case& s = p.shape;
  std::vector<float> expected = p.c0;
  k::matmul_ref(p.args(p.a.data(), p.b.data(), expected.data()));

  for (const k::KernelInfo& kernel : k::available_kernels()) {
    std::vector<float> c = p.c0;
    kernel.matmul(p.args(p.a.data(), p.b.data(), c.data()), {});
    std::size_t mismatches = 0;
    std::size_t first = 0;
    for (std::size_t idx = 0; idx < c.size(); ++idx) {
      const bool inside = idx % p.ldc < s.n;
      const double tol = inside ? tolerance(s.k, s.accumulate ? p.c0[idx] : 0.0) : 0.0;
      if (!(std::fabs(static_cast<double>(c[idx]) - expected[idx]) <= tol)) {
        if (mismatches++ == 0) first = idx;
      }
    }
    INFO("kernel " << kernel.name << ": m " << s.m << " n " << s.n << " k " << s.k << " ta " << s.ta << " tb " << s.tb
                   << " accumulate " << s.accumulate << " pad " << s.pad);
    INFO(mismatches << " mismatches; first C[" << first / p.ldc << "," << first % p.ldc << "] = " << c[first]
                    << ", expected " << expected[first]);
    CHECK(mismatches == 0);
  }
}

// Every transpose form, accumulate on and off, for one shape.
void check_all_forms(std::size_t m, std::size_t n, std::size_t depth, std::size_t pad, seatorch::core::Rng& rng) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      for (bool accumulate : {false, true}) {
        check_all_kernels(make_problem({m, n, depth, ta, tb, accumulate, pad}, rng));
      }
    }
  }
}

constexpr std::size_t kMaxEdge = 67;  // past two AVX-512 tiles (32) and four 16-wide tiles

}  // namespace

TEST_CASE("matmul kernels: ref first and every kernel runs", "[kernels]") {
  const auto kernels = k::available_kernels();
  REQUIRE(kernels.size() >= 2);
  CHECK(kernels[0].name == "ref");
  CHECK(kernels[1].name == "blocked");
  CHECK(k::default_kernel().name == kernels.back().name);
  CHECK(k::find_kernel("ref") == &kernels[0]);
  CHECK(k::find_kernel("no-such-kernel") == nullptr);
}

TEST_CASE("matmul kernels match ref for every m in 1..67", "[kernels]") {
  seatorch::core::Rng rng(101);
  for (std::size_t d = 1; d <= kMaxEdge; ++d) check_all_forms(d, 33, 17, d % 3, rng);
}

TEST_CASE("matmul kernels match ref for every n in 1..67", "[kernels]") {
  seatorch::core::Rng rng(102);
  for (std::size_t d = 1; d <= kMaxEdge; ++d) check_all_forms(29, d, 31, d % 3, rng);
}

TEST_CASE("matmul kernels match ref for every k in 1..67", "[kernels]") {
  seatorch::core::Rng rng(103);
  for (std::size_t d = 1; d <= kMaxEdge; ++d) check_all_forms(23, 19, d, d % 3, rng);
}

TEST_CASE("matmul kernels match ref on random shapes up to 300", "[kernels]") {
  seatorch::core::Rng rng(104);
  constexpr std::size_t kMaxVolume = 3'000'000;  // m*n*k: keeps the test fast under qemu
  for (int trial = 0; trial < 12;) {
    const Case s{1 + rng.below(300), 1 + rng.below(300), 1 + rng.below(300), rng.below(2) == 1,
                 rng.below(2) == 1,  rng.below(2) == 1,  rng.below(5)};
    if (s.m * s.n * s.k > kMaxVolume) continue;
    check_all_kernels(make_problem(s, rng));
    ++trial;
  }
}

TEST_CASE("matmul kernels match ref across every cache block boundary", "[kernels]") {
  seatorch::core::Rng rng(105);
  // Wider than any NC (2048) and deeper than any KC (256); taller than any MC (144) and
  // deeper than two KC blocks; narrow (C at most 14 wide has its own path) and deeper than
  // two of the largest KC (512). Accumulation across depth blocks is what can go wrong here.
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      check_all_kernels(make_problem({3, 2100, 260, ta, tb, ta != tb, 1}, rng));
      check_all_kernels(make_problem({150, 20, 520, ta, tb, ta == tb, 0}, rng));
      check_all_kernels(make_problem({70, 12, 1030, ta, tb, ta != tb, 2}, rng));
    }
  }
  // Wider than tall, A·Bᵀ: the driver computes Cᵀ with transposed tile stores (partial ones
  // at both edges), accumulating across three depth blocks.
  check_all_kernels(make_problem({45, 203, 1030, false, true, true, 1}, rng));
  // The same with C wider than two MC blocks (a batch of 20 on 300 outputs): Cᵀ's product
  // then runs its A in several blocks, read in place.
  check_all_kernels(make_problem({20, 300, 300, false, true, false, 2}, rng));
}

TEST_CASE("matmul kernels match ref on problems large enough to pack both operands", "[kernels]") {
  seatorch::core::Rng rng(106);
  // Small problems read A and B in place; past m > 2 * MC (MC <= 144 in every kernel) with
  // C wider than four micro-tiles, the driver packs B and A: always on most kernels and on the
  // AVX-512 one on Intel cores; on AMD cores that one packs each only when stored transposed
  // ((k, m), (n, k)) or with rows far apart: A 8 KiB or more, B 4 KiB (pad 990: every leading
  // dimension over 1024 floats, so A in place and B packed; pad 2040: over 2048, both packed).
  // Odd sizes leave partial panels.
  check_all_forms(301, 141, 37, 2, rng);
  check_all_forms(301, 141, 37, 990, rng);
  check_all_forms(301, 141, 37, 2040, rng);
  check_all_kernels(make_problem({297, 133, 520, false, false, true, 1}, rng));     // two KC blocks
  check_all_kernels(make_problem({297, 133, 520, false, true, false, 1528}, rng));  // the same, A packed
}

TEST_CASE("matmul kernels match ref when a small A stored (k, m) has rows 1 KiB apart", "[kernels]") {
  seatorch::core::Rng rng(107);
  // lda = 256 floats: the driver packs A although the problem is small (choose_packing), with
  // a partial last panel (253 and 250 rows), in one and in two KC blocks of depth.
  check_all_kernels(make_problem({253, 37, 70, true, false, false, 3}, rng));
  check_all_kernels(make_problem({250, 45, 300, true, true, true, 6}, rng));
  // lda = 128 floats (512 B) with C wider than 16 micro-panels of every kernel: packed too.
  check_all_kernels(make_problem({125, 530, 40, true, false, true, 3}, rng));
}

TEST_CASE("matmul kernels match ref when a small B stored (k, n) is packed", "[kernels]") {
  seatorch::core::Rng rng(109);
  // Under at least 16 tiles of every kernel's A (MR <= 8) the driver packs B although the
  // problem is small (choose_packing): with ldb = 1024 and 2048 floats on every CPU, with
  // partial last panels (1000 and 2030 columns), in one and in two passes over the depth,
  // accumulating or not;
  check_all_kernels(make_problem({130, 1000, 40, false, false, false, 24}, rng));
  check_all_kernels(make_problem({200, 2030, 300, false, false, true, 18}, rng));
  check_all_kernels(make_problem({129, 1000, 530, true, false, false, 24}, rng));
  // and a pass deep (256) however far apart its rows on Intel's cores, read in place elsewhere.
  check_all_kernels(make_problem({140, 300, 260, false, false, true, 3}, rng));
  check_all_kernels(make_problem({250, 45, 600, true, false, false, 1}, rng));
}

// C's first rows or columns, computed as a product of their own, must have the same bits as in
// the whole product: every kernel sums an element's products in one order whatever computes
// it (a tile only as wide as a last panel needs, C at most 14 rows tall, Cᵀ for an A·Bᵀ wider
// than tall, operands packed or read in place), which the split across threads relies on.
// The whole product is the oracle; the parts take each of those paths on some kernel.
namespace {

// Each kernel's product of C's first `rows` rows and `cols` columns, for each (rows, cols) in
// `parts`, with op(A) and op(B) starting where the whole ones do, against the same elements
// of that kernel's whole product, bit for bit.
void check_parts_against_whole(const Problem& whole, std::span<const std::pair<std::size_t, std::size_t>> parts) {
  const Case& s = whole.shape;
  for (const k::KernelInfo& kernel : k::available_kernels()) {
    std::vector<float> all(whole.c0.size());
    kernel.matmul(whole.args(whole.a.data(), whole.b.data(), all.data()), {});
    for (const auto& [rows, cols] : parts) {
      k::MatmulArgs args = whole.args(whole.a.data(), whole.b.data(), nullptr);
      args.shape = {rows, cols, s.k};
      std::vector<float> part(rows * whole.ldc);
      args.c = part.data();
      kernel.matmul(args, {});
      INFO("kernel " << kernel.name << ": C's first " << rows << " rows and " << cols << " columns of " << s.m << "x"
                     << s.n << "x" << s.k << ", ta " << s.ta << " tb " << s.tb);
      std::optional<std::size_t> first;  // the first element that differs, as i * ldc + j
      for (std::size_t i = 0; i < rows && !first; ++i) {
        const std::size_t row = i * whole.ldc;
        const auto j = seatorch::test::first_bit_difference(std::span<const float>(part).subspan(row, cols),
                                                            std::span<const float>(all).subspan(row, cols));
        if (j) first = row + *j;
      }
      if (first) {
        FAIL_CHECK("C[" << *first / whole.ldc << "," << *first % whole.ldc << "] = " << part[*first] << " against "
                        << all[*first] << " in the whole product");
      } else {
        SUCCEED();
      }
    }
  }
}

}  // namespace

TEST_CASE("matmul kernels give C's first rows or columns the same bits as the whole product", "[kernels]") {
  seatorch::core::Rng rng(108);
  constexpr std::size_t kDepth = 300;  // deep enough for the Cᵀ path (256)
  const std::vector<std::size_t> cuts{1, 4, 5, 8, 13, 16, 17, 25, 33};
  // The second whole product is large (m > 2 * MC of every kernel, C wider than four
  // micro-tiles): the portable and AVX2 kernels pack its operands on every CPU, the AVX-512
  // one on Intel's (DECISIONS 110). Its parts of at most 33 rows are too short to count as
  // large, and those of at most 33 columns too narrow for A's copy to pay, so they read in
  // place what the whole packed (B stored (n, k) is packed at any size).
  for (const auto& [m, n] : {std::pair<std::size_t, std::size_t>{45, 67}, {289, 140}}) {
    std::vector<std::pair<std::size_t, std::size_t>> parts;  // (rows, columns) of C
    for (const std::size_t d : cuts) {
      parts.emplace_back(d, n);
      parts.emplace_back(m, d);
    }
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        check_parts_against_whole(make_problem({m, n, kDepth, ta, tb, false, 1}, rng), parts);
      }
    }
  }
}

TEST_CASE("matmul kernels with k = 0 zero C or leave it when accumulating", "[kernels]") {
  for (const k::KernelInfo& kernel : k::available_kernels()) {
    INFO("kernel " << kernel.name);
    std::vector<float> c{1.f, 2.f, 3.f, 4.f, 5.f, 6.f};  // (2, 3), one float of padding
    kernel.matmul({{2, 2, 0}, nullptr, 0, k::Transpose::kNo, nullptr, 2, k::Transpose::kNo, c.data(), 3, true}, {});
    CHECK(c == std::vector<float>{1.f, 2.f, 3.f, 4.f, 5.f, 6.f});
    kernel.matmul({{2, 2, 0}, nullptr, 0, k::Transpose::kYes, nullptr, 2, k::Transpose::kYes, c.data(), 3, false}, {});
    CHECK(c == std::vector<float>{0.f, 0.f, 3.f, 0.f, 0.f, 6.f});
  }
}

TEST_CASE("matmul kernels with m = 0 or n = 0 touch nothing", "[kernels]") {
  for (const k::KernelInfo& kernel : k::available_kernels()) {
    INFO("kernel " << kernel.name);
    const std::vector<float> a(6, 1.f), b(6, 1.f);
    std::vector<float> c(6, 7.f);
    kernel.matmul({{0, 3, 2}, a.data(), 2, k::Transpose::kNo, b.data(), 3, k::Transpose::kNo, c.data(), 3, false}, {});
    kernel.matmul({{2, 0, 3}, a.data(), 3, k::Transpose::kNo, b.data(), 1, k::Transpose::kNo, c.data(), 1, false}, {});
    CHECK(c == std::vector<float>(6, 7.f));
  }
}

namespace {

// What the epilogue means, composed from the kernel's plain product: C's rows start as the
// bias (or the product starts from zero), the product is accumulated onto them, and every
// element is clamped at zero after it (std::max(c, 0.0f), which keeps a NaN and -0).
void unfused_epilogue(const k::KernelInfo& kernel, k::MatmulArgs args, const k::Epilogue& epilogue) {
  const auto [m, n, depth] = args.shape;
  if (epilogue.bias != nullptr) {
    for (std::size_t i = 0; i < m; ++i) std::copy_n(epilogue.bias, n, args.c + i * args.ldc);
    args.accumulate = true;
  }
  kernel.matmul(args, {});
  if (!epilogue.relu) return;
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t j = 0; j < n; ++j) args.c[i * args.ldc + j] = std::max(args.c[i * args.ldc + j], 0.0f);
  }
}

}  // namespace

// The fast kernels add the bias with their first sum over the depth and clamp on their last
// pass, as each tile leaves the registers; the bits must be those of the unfused epilogue on
// every path a tile takes: several passes (784 deep: two sums, the first in two passes where
// kc is 256), Cᵀ for an A·Bᵀ wider than tall (the bias then runs down the tile's rows), tiles
// as short as C (10 rows, or 10 columns through Cᵀ), a partial last panel, and k = 0. Row 1
// of op(A) holds a NaN and the bias a -0, which the clamp must keep.
TEST_CASE("matmul kernels apply a fused epilogue with the bits of bias rows, product and clamp", "[kernels]") {
  seatorch::core::Rng rng(82);
  const std::vector<Case> cases = {{5, 7, 3, false, false, false, 1},     {64, 128, 784, false, true, false, 2},
                                   {16, 300, 300, false, true, false, 1}, {10, 40, 30, false, false, false, 3},
                                   {40, 10, 300, false, true, false, 1},  {45, 67, 300, true, false, false, 2},
                                   {3, 5, 0, false, false, false, 1}};
  for (const Case& s : cases) {
    Problem p = make_problem(s, rng);
    if (s.k > 0) {  // op(A)(1, k / 2), stored (k, m) or (m, k)
      const std::size_t at = s.ta ? s.k / 2 * p.lda + 1 : p.lda + s.k / 2;
      p.a[at] = std::numeric_limits<float>::quiet_NaN();
    }
    std::vector<float> bias(s.n);
    for (float& x : bias) x = static_cast<float>(rng.uniform(-1.0, 1.0));
    bias[0] = -0.0f;
    for (const k::KernelInfo& kernel : k::available_kernels()) {
      for (const bool biased : {false, true}) {
        for (const bool relu : {false, true}) {
          const k::Epilogue epilogue{biased ? bias.data() : nullptr, relu};
          INFO("kernel " << kernel.name << ", " << s.m << "x" << s.n << "x" << s.k << " ta " << s.ta << " tb " << s.tb
                         << (biased ? ", bias" : "") << (relu ? ", ReLU" : ""));
          std::vector<float> want = p.c0;
          unfused_epilogue(kernel, p.args(p.a.data(), p.b.data(), want.data()), epilogue);
          std::vector<float> got = p.c0;
          kernel.matmul(p.args(p.a.data(), p.b.data(), got.data()), epilogue);
          if (const auto diff = seatorch::test::first_bit_difference(got, want)) {
            FAIL_CHECK("C[" << *diff / p.ldc << "," << *diff % p.ldc << "] = " << got[*diff] << " against "
                            << want[*diff] << " unfused");
          } else {
            SUCCEED();
          }
        }
      }
    }
  }
}

namespace {

// The depth of each of an element's sums, gemm_driver.hpp's rule restated: 512, unless that
// would leave a last sum shallower than 128; then k is spread evenly over one sum fewer.
std::size_t sum_depth(std::size_t depth) {
  const std::size_t full = depth / 512;
  if (full == 0) return depth;
  if (depth % 512 == 0 || depth % 512 >= 128) return 512;
  return (depth + full - 1) / full;
}

// C as every kernel with a fused multiply-add must store it, element by element: its products
// in increasing p, chained by std::fma from zero within each sum of sum_depth(k), the sums
// added in order onto the bias, or onto C when accumulating (with neither, the first sum is
// where C starts), then the clamp.
std::vector<float> fused_sums(const Problem& p, const k::Epilogue& epilogue) {
  const Case& s = p.shape;
  const std::size_t depth = sum_depth(s.k);
  std::vector<float> c = p.c0;
  for (std::size_t i = 0; i < s.m; ++i) {
    for (std::size_t j = 0; j < s.n; ++j) {
      float& out = c[i * p.ldc + j];
      bool started = s.accumulate || epilogue.bias != nullptr;
      float value = s.accumulate ? out : epilogue.bias != nullptr ? epilogue.bias[j] : 0.0f;
      for (std::size_t s0 = 0; s0 < s.k; s0 += depth) {
        float sum = 0.0f;
        for (std::size_t q = s0; q < std::min(s0 + depth, s.k); ++q) {
          const float a = s.ta ? p.a[q * p.lda + i] : p.a[i * p.lda + q];
          const float b = s.tb ? p.b[j * p.ldb + q] : p.b[q * p.ldb + j];
          sum = std::fma(a, b, sum);
        }
        value = started ? value + sum : sum;
        started = true;
      }
      out = epilogue.relu ? std::max(value, 0.0f) : value;
    }
  }
  return c;
}

}  // namespace

// The kernels cut each element's sum at the same depths whatever their cache blocking (kc 256
// for avx2, neon and avx512 on Intel's cores, whose first sum of 512 rests in C between two
// passes; 512 for avx512 on AMD's), so every kernel with a fused multiply-add (those with an
// FMA probe) gives the same bits on every CPU. Checked against std::fma element by element:
// depths that make one sum (600: 512 + 88 would leave a sliver), two and three, on every path
// a tile takes (tiles as short as C, Cᵀ through transposed stores, both operands packed),
// every transpose form, accumulating, and with the bias and clamp fused.
TEST_CASE("every kernel with a fused multiply-add sums as std::fma in sums cut at 512", "[kernels]") {
  seatorch::core::Rng rng(114);
  const std::vector<std::array<std::size_t, 3>> shapes = {{37, 53, 1100}, {33, 40, 784},  {20, 70, 1024},
                                                          {9, 45, 600},   {21, 30, 513},  {5, 50, 784},
                                                          {50, 7, 784},   {16, 300, 784}, {300, 40, 784}};
  for (const auto& [m, n, depth] : shapes) {
    for (const int form : {0, 1, 2, 3}) {
      for (const bool accumulate : {false, true}) {
        const Problem p = make_problem({m, n, depth, (form & 1) != 0, (form & 2) != 0, accumulate, 1}, rng);
        std::vector<float> bias(n);
        for (float& x : bias) x = static_cast<float>(rng.uniform(-1.0, 1.0));
        for (const bool fused : {false, true}) {
          if (accumulate && fused) continue;  // the epilogue is for a product that starts C
          const k::Epilogue epilogue{fused ? bias.data() : nullptr, fused};
          const std::vector<float> want = fused_sums(p, epilogue);
          for (const k::KernelInfo& kernel : k::available_kernels()) {
            if (kernel.fma_probe == nullptr) continue;  // ref and blocked: no fused multiply-add
            std::vector<float> got = p.c0;
            kernel.matmul(p.args(p.a.data(), p.b.data(), got.data()), epilogue);
            INFO("kernel " << kernel.name << ", " << m << "x" << n << "x" << depth << " ta " << p.shape.ta << " tb "
                           << p.shape.tb << (accumulate ? ", accumulate" : "") << (fused ? ", bias and ReLU" : ""));
            if (const auto diff = seatorch::test::first_bit_difference(got, want)) {
              FAIL_CHECK("C[" << *diff / p.ldc << "," << *diff % p.ldc << "] = " << got[*diff] << " against "
                              << want[*diff] << " from std::fma");
            } else {
              SUCCEED();
            }
          }
        }
      }
    }
  }
}
