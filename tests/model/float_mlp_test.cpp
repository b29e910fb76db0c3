// float_forward_into and FloatForward against float_forward (which allocates every activation
// afresh): the same bits, with one set of buffers reused over batches that shrink and grow;
// on a mostly-zero input, float_forward against the dense kernel's products, and FloatForward's
// prepared first layer against float_forward with every kernel.
#include "seatorch/model/float_mlp.hpp"

#include "seatorch/core/rng.hpp"
#include "seatorch/kernels/matmul.hpp"
#include "seatorch/kernels/product_log.hpp"

#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace k = seatorch::kernels;
namespace model = seatorch::model;

namespace {

std::vector<float> uniform(std::size_t n, seatorch::core::Rng& rng) {
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(rng.uniform(-1.0, 1.0));
  return v;
}

// A 784-hidden-10 model of random weights, the ReLU after its first layer.
model::FloatMlp random_digit_mlp(std::size_t hidden, seatorch::core::Rng& rng) {
  model::FloatMlp m;
  m.layers.push_back({784, hidden, uniform(784 * hidden, rng), uniform(hidden, rng), true});
  m.layers.push_back({hidden, 10, uniform(hidden * 10, rng), uniform(10, rng), false});
  return m;
}

// (n, 784), four fifths zeros like a batch of digits.
std::vector<float> mostly_zero(std::size_t n, seatorch::core::Rng& rng) {
  std::vector<float> x = uniform(n * 784, rng);
  for (float& v : x) v = v > 0.6f ? v : 0.0f;
  return x;
}

// Every logit of `got` has the bits of the oracle's; a failure names the logit and both values.
void require_same_bits(std::span<const float> got, std::span<const float> oracle, const std::string& what) {
  REQUIRE(got.size() == oracle.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO(what << ", logit " << i << ": " << got[i] << " vs " << oracle[i]);
    REQUIRE(std::bit_cast<std::uint32_t>(got[i]) == std::bit_cast<std::uint32_t>(oracle[i]));
  }
}

}  // namespace

TEST_CASE("float_forward_into reuses its buffers and gives float_forward's bits", "[model]") {
  seatorch::core::Rng rng(7);
  model::FloatMlp m;
  const std::size_t sizes[] = {37, 20, 33, 10};
  for (std::size_t l = 0; l + 1 < std::size(sizes); ++l) {
    const std::size_t in = sizes[l];
    const std::size_t out = sizes[l + 1];
    m.layers.push_back({in, out, uniform(in * out, rng), uniform(out, rng), l + 2 < std::size(sizes)});
  }
  model::ForwardBuffers buffers;
  model::ForwardBuffers prepared_buffers;
  const model::FloatForward prepared(m);
  for (const std::size_t n : {5, 3, 9, 1}) {
    const std::vector<float> x = uniform(n * m.inputs(), rng);  // (n, inputs)
    const std::vector<float> expected = model::float_forward(m, x, n);
    const std::span<const float> got = model::float_forward_into(m, x, n, buffers);
    require_same_bits(got, expected, "batch " + std::to_string(n) + ", float_forward_into vs float_forward");
    const std::span<const float> got_prepared = prepared.run(x, n, prepared_buffers);
    require_same_bits(got_prepared, expected, "batch " + std::to_string(n) + ", FloatForward vs float_forward");
  }
}

TEST_CASE("FloatForward's first layer, read from Wᵀ's panels, gives float_forward's bits with every kernel",
          "[model]") {
  seatorch::core::Rng rng(9);
  // 200 outputs: one whole panel and one of 72 columns; 130 rows: two chunks of compressed rows.
  const model::FloatMlp m = random_digit_mlp(200, rng);
  const std::size_t n = 130;
  const std::vector<float> x = mostly_zero(n, rng);  // (n, 784)
  const model::FloatForward prepared(m);
  const std::string before(k::selected_kernel());
  for (const std::string& kernel : k::kernel_names()) {
    k::select_kernel(kernel);
    const std::vector<float> expected = model::float_forward(m, x, n);
    model::ForwardBuffers buffers;
    k::ProductLog log;
    std::span<const float> got;
    {
      const k::RecordProducts recording(log);
      got = prepared.run(x, n, buffers);
    }
    REQUIRE(!log.records().empty());
    CHECK(log.records().front().kind.sparse);  // the first layer's product, on the nonzeros
    require_same_bits(got, expected, "kernel " + kernel + ", FloatForward vs float_forward");
  }
  k::select_kernel(before);
}

TEST_CASE("float_forward takes a mostly-zero input's nonzeros alone and gives the dense product's bits", "[model]") {
  seatorch::core::Rng rng(8);
  const model::FloatMlp m = random_digit_mlp(128, rng);
  const std::size_t n = 64;
  const std::vector<float> x = mostly_zero(n, rng);  // (n, 784)

  // The oracle: each layer as the dense kernel's product, then its bias and ReLU.
  std::vector<float> input = x;
  for (const model::DenseLayer& layer : m.layers) {
    std::vector<float> y(n * layer.out);  // (n, out)
    k::matmul({{n, layer.out, layer.in},
               input.data(),
               layer.in,
               k::Transpose::kNo,
               layer.weight.data(),
               layer.in,
               k::Transpose::kYes,
               y.data(),
               layer.out,
               false});
    for (std::size_t s = 0; s < n; ++s) {
      for (std::size_t j = 0; j < layer.out; ++j) {
        float& v = y[s * layer.out + j];
        v += layer.bias[j];
        if (layer.relu && v < 0.0f) v = 0.0f;
      }
    }
    input = std::move(y);
  }

  k::ProductLog log;
  std::vector<float> got;
  {
    const k::RecordProducts recording(log);
    got = model::float_forward(m, x, n);
  }
  REQUIRE(!log.records().empty());
  CHECK(log.records().front().kind.sparse);  // the first layer's product, on the nonzeros
  require_same_bits(got, input, "float_forward vs the dense products");
}
