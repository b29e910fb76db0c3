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
    const std::span<const float> got_prepared = prepared.run(x, n, prepared_buffers);
    REQUIRE(got.size() == expected.size());
    REQUIRE(got_prepared.size() == expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO("batch " << n << ", logit " << i << ": " << got[i] << " and FloatForward's " << got_prepared[i]
                    << " vs float_forward's " << expected[i]);
      REQUIRE(std::bit_cast<std::uint32_t>(got[i]) == std::bit_cast<std::uint32_t>(expected[i]));
      REQUIRE(std::bit_cast<std::uint32_t>(got_prepared[i]) == std::bit_cast<std::uint32_t>(expected[i]));
    }
  }
}

TEST_CASE("FloatForward's first layer, read from Wᵀ's panels, gives float_forward's bits with every kernel",
          "[model]") {
  seatorch::core::Rng rng(9);
  model::FloatMlp m;
  // 200 outputs: one whole panel and one of 72 columns; 130 rows: two chunks of compressed rows.
  m.layers.push_back({784, 200, uniform(784 * 200, rng), uniform(200, rng), true});
  m.layers.push_back({200, 10, uniform(200 * 10, rng), uniform(10, rng), false});
  const std::size_t n = 130;
  std::vector<float> x = uniform(n * 784, rng);  // (n, 784), four fifths zeros like a batch of digits
  for (float& v : x) v = v > 0.6f ? v : 0.0f;
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
    REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO("kernel " << kernel << ", logit " << i << ": " << got[i] << " vs float_forward's " << expected[i]);
      REQUIRE(std::bit_cast<std::uint32_t>(got[i]) == std::bit_cast<std::uint32_t>(expected[i]));
    }
  }
  k::select_kernel(before);
}

TEST_CASE("float_forward takes a mostly-zero input's nonzeros alone and gives the dense product's bits", "[model]") {
  seatorch::core::Rng rng(8);
  model::FloatMlp m;
  m.layers.push_back({784, 128, uniform(784 * 128, rng), uniform(128, rng), true});
  m.layers.push_back({128, 10, uniform(128 * 10, rng), uniform(10, rng), false});
  const std::size_t n = 64;
  std::vector<float> x = uniform(n * 784, rng);  // (n, 784), four fifths zeros like a batch of digits
  for (float& v : x) v = v > 0.6f ? v : 0.0f;

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
  REQUIRE(got.size() == input.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("logit " << i << ": " << got[i] << " vs the dense product's " << input[i]);
    REQUIRE(std::bit_cast<std::uint32_t>(got[i]) == std::bit_cast<std::uint32_t>(input[i]));
  }
}
