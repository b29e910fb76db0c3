// The training bench's FLOP count against products counted by hand.
#include "seatorch/bench/train_bench.hpp"

#include <catch2/catch.hpp>

namespace b = seatorch::bench;

TEST_CASE("mlp_product_flops counts each layer's forward, weight-gradient and input-gradient products", "[bench]") {
  // 784-128-10 per sample: forward 2*784*128 + 2*128*10 = 203,264; weight gradients the same;
  // the input gradient of the second layer only, 2*128*10 = 2,560.
  CHECK(b::mlp_product_flops({784, 128, 10}, 1) == 409088.0);
  CHECK(b::mlp_product_flops({784, 128, 10}, 60000) == 409088.0 * 60000.0);
  // 784-256-128-10: forward 2 * (200,704 + 32,768 + 1,280) = 469,504, weight gradients the
  // same, input gradients of layers 2 and 3: 2 * (32,768 + 1,280) = 68,096.
  CHECK(b::mlp_product_flops({784, 256, 128, 10}, 1) == 1007104.0);
  CHECK(b::mlp_product_flops({784, 10}, 3) == 3 * 2.0 * 2.0 * 7840.0);  // no hidden layer: no input gradient
}
