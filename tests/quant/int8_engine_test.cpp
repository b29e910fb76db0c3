// Int8Engine (every kernel) against int8_forward_ref, bit for bit: logits and every layer's
// outputs, on random models with extreme zero-points and pixels 0 and 255.
#include "seatorch/quant/int8_engine.hpp"

#include "random_models.hpp"
#include "seatorch/core/argmax.hpp"

#include <catch2/catch.hpp>

namespace q = seatorch::quant;

TEST_CASE("Int8Engine's chunk is whole tiles of every kernel", "[quant]") {
  for (const std::string& name : seatorch::kernels::int8_kernel_names()) {
    const std::size_t tile = seatorch::kernels::int8_kernel(name).tile_images;
    INFO("kernel " << name << ": tile of " << tile << " images, chunk of " << q::Int8Engine::kChunk);
    CHECK(tile >= 1);
    CHECK(q::Int8Engine::kChunk % tile == 0);
  }
}

TEST_CASE("Int8Engine equals int8_forward_ref bit for bit on every kernel", "[quant]") {
  seatorch::core::Rng rng(77);
  const std::vector<std::vector<std::size_t>> shapes{{784, 33, 10}, {37, 19, 5}, {5, 64, 17, 3}, {1, 1}};
  for (int trial = 0; trial < 8; ++trial) {
    const auto& sizes = shapes[static_cast<std::size_t>(trial) % shapes.size()];
    const bool extremes = trial % 2 == 1;
    const q::Int8Model model = seatorch::test::random_int8_model(sizes, rng, extremes);
    const std::size_t n = 2 * q::Int8Engine::kChunk + 5;  // two whole chunks and a short one
    const std::vector<std::uint8_t> pixels = seatorch::test::random_pixels(n, sizes.front(), rng);
    for (const std::string& name : seatorch::kernels::int8_kernel_names()) {
      const q::Int8Engine engine(model, name);
      std::vector<std::int8_t> logits(n * model.outputs());
      std::vector<std::vector<std::int8_t>> layers;
      engine.forward(pixels, n, logits, &layers);
      const std::vector<std::int32_t> classes = engine.predict(pixels, n);
      for (std::size_t s = 0; s < n; ++s) {
        std::vector<q::Int8LayerTrace> trace;
        const auto expected =
            q::int8_forward_ref(model, std::span(pixels).subspan(s * sizes.front(), sizes.front()), &trace);
        for (std::size_t k = 0; k < model.layers.size(); ++k) {
          for (std::size_t j = 0; j < model.layers[k].out; ++j) {
            const std::int8_t actual = layers[k][s * model.layers[k].out + j];
            INFO("kernel " << name << " trial " << trial << " image " << s << " layer " << k << " output " << j << ": "
                           << int{actual} << ", ref " << int{trace[k].outputs[j]});
            REQUIRE(actual == trace[k].outputs[j]);
          }
        }
        for (std::size_t j = 0; j < model.outputs(); ++j) REQUIRE(logits[s * model.outputs() + j] == expected[j]);
        REQUIRE(classes[s] == static_cast<std::int32_t>(seatorch::core::argmax(expected)));
      }
    }
  }
}
