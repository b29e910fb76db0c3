// Fake quantization: the forward against the quantizer's own quantize/dequantize (bit for
// bit, per tensor and per row, contiguous and strided), and the backward against the
// clipped straight-through estimator's definition.
#include "gradcheck.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/quant/quantizer.hpp"

#include <climits>
#include <cmath>

using namespace seatorch::tensor;
namespace q = seatorch::quant;

namespace {

AffineGrid grid_of(const q::QuantParams& p) { return {p.scale, p.zero_point, p.qmin, p.qmax}; }

// A random grid: asymmetric over a random range containing 0, or symmetric.
q::QuantParams random_params(seatorch::core::Rng& rng) {
  const double lo = -rng.uniform(0.0, 2.0), hi = rng.uniform(0.1, 2.0);
  return rng.below(2) ? q::affine_params(lo, hi) : q::symmetric_params(hi);
}

// The oracle's forward: the quantizer's quantize then dequantize, rounded to float32.
float expected_value(const q::QuantParams& p, float x) { return static_cast<float>(p.dequantize(p.quantize(x))); }

// The oracle's STE mask: the gradient passes where quantizing on an unbounded grid gives an
// integer inside [qmin, qmax], i.e. where the clamp does not act.
float expected_mask(const q::QuantParams& p, float x) {
  q::QuantParams unbounded = p;
  unbounded.qmin = INT_MIN / 2;
  unbounded.qmax = INT_MAX / 2;
  const std::int32_t t = unbounded.quantize(x);
  return t >= p.qmin && t <= p.qmax ? 1.0f : 0.0f;
}

// Values over twice the grid's range, so about half saturate, plus exact ties.
std::vector<float> probe_values(const q::QuantParams& p, std::size_t n, seatorch::core::Rng& rng) {
  const double lo = (p.qmin - p.zero_point) * p.scale, hi = (p.qmax - p.zero_point) * p.scale;
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = i % 4 == 0 ? static_cast<float>((static_cast<double>(rng.below(600)) - 300.0 + 0.5) * p.scale)
                      : static_cast<float>(rng.uniform(2 * lo, 2 * hi));
  }
  return v;
}

}  // namespace

TEST_CASE("fake_quantize matches QuantParams quantize then dequantize", "[tensor][quant]") {
  seatorch::core::Rng rng(21);
  for (int trial = 0; trial < 50; ++trial) {
    const q::QuantParams p = random_params(rng);
    const std::vector<float> x = probe_values(p, 512, rng);
    const std::vector<float> y = fake_quantize(Tensor::from<float>(x, {16, 32}), grid_of(p)).values();
    for (std::size_t i = 0; i < x.size(); ++i) {
      INFO("trial " << trial << " element " << i << " x " << x[i] << " scale " << p.scale << " zp " << p.zero_point
                    << " got " << y[i] << " expected " << expected_value(p, x[i]));
      REQUIRE(y[i] == expected_value(p, x[i]));
    }
  }
  // The rounding rule: ties away from zero on the grid s = 1, z = 0.
  const std::vector<float> ties =
      fake_quantize(Tensor::from({-2.5f, -0.5f, 0.5f, 2.5f, 300.0f, -300.0f}, {6}), {}).values();
  CHECK(ties == std::vector<float>{-3.0f, -1.0f, 1.0f, 3.0f, 127.0f, -128.0f});
}

TEST_CASE("fake_quantize_rows puts each row on its own grid and reads strided input", "[tensor][quant]") {
  seatorch::core::Rng rng(22);
  const std::size_t rows = 7, cols = 33;
  std::vector<q::QuantParams> params;
  std::vector<AffineGrid> grids;
  for (std::size_t r = 0; r < rows; ++r) {
    params.push_back(random_params(rng));
    grids.push_back(grid_of(params.back()));
  }
  std::vector<float> x;  // (rows, cols)
  for (std::size_t r = 0; r < rows; ++r) {
    const std::vector<float> row = probe_values(params[r], cols, rng);
    x.insert(x.end(), row.begin(), row.end());
  }
  // The same values as the transposed view of a (cols, rows) tensor: strides (1, rows).
  std::vector<float> xt(x.size());  // (cols, rows)
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t c = 0; c < cols; ++c) xt[c * rows + r] = x[r * cols + c];
  }
  const Tensor dense = Tensor::from<float>(x, {rows, cols});
  const Tensor strided = transpose(Tensor::from<float>(xt, {cols, rows}), 0, 1);
  REQUIRE_FALSE(strided.is_contiguous());
  for (const Tensor& input : {dense, strided}) {
    const std::vector<float> y = fake_quantize_rows(input, grids).values();
    for (std::size_t i = 0; i < y.size(); ++i) {
      const q::QuantParams& p = params[i / cols];
      INFO("element " << i << " x " << x[i] << " got " << y[i] << " expected " << expected_value(p, x[i]));
      REQUIRE(y[i] == expected_value(p, x[i]));
    }
  }
  CHECK_THROWS_AS(fake_quantize_rows(dense, std::span<const AffineGrid>(grids).first(3)), seatorch::core::InputError);
  CHECK_THROWS_AS(fake_quantize(dense, AffineGrid{0.0, 0, -127, 127}), seatorch::core::InputError);
  CHECK_THROWS_AS(fake_quantize(dense, AffineGrid{1.0, 200, -128, 127}), seatorch::core::InputError);
}

TEST_CASE("fake_quantize backward is the clipped straight-through estimator", "[tensor][quant]") {
  seatorch::core::Rng rng(23);
  const std::size_t rows = 5, cols = 40;
  std::vector<q::QuantParams> params;
  std::vector<AffineGrid> grids;
  std::vector<float> x;  // (rows, cols)
  for (std::size_t r = 0; r < rows; ++r) {
    params.push_back(random_params(rng));
    grids.push_back(grid_of(params.back()));
    const std::vector<float> row = probe_values(params.back(), cols, rng);
    x.insert(x.end(), row.begin(), row.end());
  }
  const Tensor upstream = testing::random_tensor({rows, cols}, rng);  // d(loss)/dy
  const std::vector<float> g = upstream.values();
  for (const bool per_row : {false, true}) {
    Tensor input = Tensor::from<float>(x, {rows, cols});
    input.set_requires_grad(true);
    auto fq = [&] { return per_row ? fake_quantize_rows(input, grids) : fake_quantize(input, grids.front()); };
    const Tensor y1 = fq(), y2 = fq();
    CHECK(std::string(y1.op_name()) == (per_row ? "fake_quantize_rows" : "fake_quantize"));
    // Two consumers of the input: the second backward rule adds into the first's gradient.
    sum(y1 * upstream + y2 * upstream).backward();
    const std::vector<float> grad = input.grad().values();
    std::size_t passed = 0, stopped = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const float m = expected_mask(per_row ? params[i / cols] : params.front(), x[i]);
      (m == 1.0f ? passed : stopped) += 1;
      INFO("per_row " << per_row << " element " << i << " x " << x[i] << " got " << grad[i] << " expected "
                      << 2 * g[i] * m);
      REQUIRE(grad[i] == 2 * g[i] * m);
    }
    CHECK(passed > 50);  // both branches of the estimator are exercised
    CHECK(stopped > 50);
  }
}
