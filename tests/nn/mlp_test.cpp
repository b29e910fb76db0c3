// The tensor MLP: the scalar engine's initial weights for the same seed, PyTorch's
// state-dict names and shapes (with and without dropout), state-dict round trips and the
// errors a foreign checkpoint gets.
#include "seatorch/core/error.hpp"
#include "seatorch/nn/mlp.hpp"
#include "seatorch/scalar/mlp.hpp"
#include "seatorch/tensor/ops.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <vector>

using seatorch::nn::Mlp;

TEST_CASE("the tensor MLP starts from the scalar engine's weights for the same seed", "[nn]") {
  // The second model's input layer is held in panels (256 outputs, nn::kWeightPanel 128).
  const std::vector<std::size_t> sizes =
      GENERATE(std::vector<std::size_t>{5, 4, 3, 2}, std::vector<std::size_t>{3, 256, 2});
  CAPTURE(sizes);
  seatorch::core::Rng scalar_rng(42), tensor_rng(42);
  seatorch::scalar::ScalarGraph graph;
  const seatorch::scalar::Mlp reference(graph, sizes, seatorch::scalar::Activation::kRelu, scalar_rng);
  const Mlp model(sizes, 0.0, tensor_rng);
  std::vector<float> flat;  // the state dict's values: each weight (out, in), as the scalar engine's
  for (const auto& b : model.state_dict()) flat.insert(flat.end(), b.data.begin(), b.data.end());
  const std::vector<seatorch::scalar::Value> expected = reference.parameters();
  REQUIRE(flat.size() == expected.size());
  for (std::size_t i = 0; i < flat.size(); ++i) {
    INFO("parameter " << i << ": tensor " << flat[i] << ", scalar " << expected[i].data());
    CHECK(flat[i] == static_cast<float>(expected[i].data()));  // the same draw, rounded to float
  }
  CHECK(scalar_rng.next_u64() == tensor_rng.next_u64());  // and the same number of draws
}

TEST_CASE("parameters carry nn.Sequential names and PyTorch shapes, the weights kept transposed", "[nn]") {
  const std::array<std::size_t, 4> sizes{784, 256, 128, 10};
  seatorch::core::Rng rng(0);
  const Mlp plain(sizes, 0.0, rng);
  const Mlp with_dropout(sizes, 0.2, rng);
  // With or without dropout: the inference-time Sequential(Linear, ReLU, ..., Linear) names.
  const std::vector<std::string> names{"0.weight", "0.bias", "2.weight", "2.bias", "4.weight", "4.bias"};
  const std::vector<seatorch::tensor::Shape> shapes{{256, 784}, {256}, {128, 256}, {128}, {10, 128}, {10}};
  const auto params = plain.parameters();
  const auto dropped = with_dropout.parameters();
  const seatorch::nn::StateDict state = plain.state_dict();
  REQUIRE(params.size() == 6);
  REQUIRE(state.size() == 6);
  for (std::size_t i = 0; i < 6; ++i) {
    INFO("parameter " << i);
    CHECK(params[i].name == names[i]);
    CHECK(dropped[i].name == names[i]);
    CHECK(state[i].name == names[i]);
    CHECK(seatorch::tensor::Shape{std::span<const std::size_t>(state[i].shape)} == shapes[i]);
    // Weights held as Wᵀ (in, out), the input layer's 256 columns in two panels of 128;
    // biases as they are.
    const bool weight = i % 2 == 0;
    using seatorch::tensor::WeightLayout;
    const WeightLayout layout = i == 0   ? WeightLayout::kInOutPanels
                                : weight ? WeightLayout::kInOut
                                         : WeightLayout::kOutIn;
    CHECK(params[i].layout == layout);
    const seatorch::tensor::Shape held = i == 0   ? seatorch::tensor::Shape{2, 784, 128}
                                         : weight ? seatorch::tensor::Shape{shapes[i][1], shapes[i][0]}
                                                  : shapes[i];
    CHECK(params[i].tensor.shape() == held);
    CHECK(params[i].tensor.requires_grad());
    const double bound = 1.0 / std::sqrt(static_cast<double>(sizes[i / 2]));
    for (float v : params[i].tensor.values()) REQUIRE(std::abs(v) <= bound);
  }
  CHECK(plain.architecture() == "784-256-128-10");
  CHECK(plain.parameter_count() == 784 * 256 + 256 + 256 * 128 + 128 + 128 * 10 + 10);
}

TEST_CASE("state dicts round-trip and foreign ones are rejected by name", "[nn]") {
  const std::array<std::size_t, 3> sizes{3, 4, 2};
  seatorch::core::Rng a_rng(1), b_rng(2);
  Mlp a(sizes, 0.0, a_rng);
  Mlp b(sizes, 0.0, b_rng);
  b.load_state_dict(a.state_dict());
  const auto x = seatorch::tensor::Tensor::from({0.1f, -0.2f, 0.3f, 0.5f, 0.5f, -1.0f}, {2, 3});
  CHECK(a.forward(x).values() == b.forward(x).values());

  auto state = a.state_dict();
  state[2].shape = {2, 5};
  CHECK_THROWS_WITH(b.load_state_dict(state), Catch::Contains("'2.weight'") && Catch::Contains("3-4-2"));
  state = a.state_dict();
  state.pop_back();
  CHECK_THROWS_WITH(b.load_state_dict(state), Catch::Contains("'2.bias' is missing"));
  state = a.state_dict();
  state.push_back({"9.weight", {1}, {0.0f}});
  CHECK_THROWS_WITH(b.load_state_dict(state), Catch::Contains("unexpected tensor '9.weight'"));
  CHECK_THROWS_AS(Mlp(std::array<std::size_t, 2>{3, 0}, 0.0, a_rng), seatorch::core::InputError);
  CHECK_THROWS_AS(Mlp(sizes, 1.0, a_rng), seatorch::core::InputError);
}

TEST_CASE("dropout acts in training mode only", "[nn]") {
  const std::array<std::size_t, 3> sizes{4, 64, 2};
  seatorch::core::Rng rng(3);
  Mlp model(sizes, 0.5, rng, 7);
  const auto x = seatorch::tensor::Tensor::full({1, 4}, 1.0f);
  model.set_training(false);
  const std::vector<float> eval_a = model.forward(x).values();
  CHECK(model.forward(x).values() == eval_a);
  model.set_training(true);
  CHECK(model.forward(x).values() != eval_a);
}
