// float_forward_into against float_forward (which allocates every activation afresh): the
// same bits, with one set of buffers reused over batches that shrink and grow.
#include "seatorch/model/float_mlp.hpp"

#include "seatorch/core/rng.hpp"

#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <vector>

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
  for (const std::size_t n : {5, 3, 9, 1}) {
    const std::vector<float> x = uniform(n * m.inputs(), rng);  // (n, inputs)
    const std::vector<float> expected = model::float_forward(m, x, n);
    const std::span<const float> got = model::float_forward_into(m, x, n, buffers);
    REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      INFO("batch " << n << ", logit " << i << ": " << got[i] << " vs float_forward's " << expected[i]);
      REQUIRE(std::bit_cast<std::uint32_t>(got[i]) == std::bit_cast<std::uint32_t>(expected[i]));
    }
  }
}
