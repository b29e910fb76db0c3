// Gradients through the views and contiguous() against finite differences.
#include "gradcheck.hpp"

using namespace seatorch::tensor;
using testing::check_gradients;

namespace {

Tensor input(const Shape& shape, std::uint64_t seed) {
  seatorch::core::Rng rng(seed);
  return testing::random_tensor(shape, rng);
}

}  // namespace

TEST_CASE("view gradients match finite differences", "[tensor]") {
  check_gradients([](const auto& in) { return reshape(in[0], {4, 3}); }, {input({2, 6}, 1)});
  check_gradients([](const auto& in) { return transpose(in[0], 0, 2); }, {input({2, 3, 4}, 2)});
  check_gradients([](const auto& in) { return permute(in[0], {2, 0, 1}); }, {input({2, 3, 4}, 3)});
  check_gradients([](const auto& in) { return slice(in[0], 1, 1, 3) * slice(in[0], 1, 0, 2); }, {input({3, 4}, 4)});
  check_gradients(
      [](const auto& in) {
        return expand(in[0], {3, 2, 4}) * in[1];
      },
      {input({2, 1}, 5), input({3, 2, 4}, 6)});
  check_gradients([](const auto& in) { return contiguous(transpose(in[0], 0, 1)) * in[1]; },
                  {input({3, 4}, 7), input({4, 3}, 8)});
  check_gradients([](const auto& in) { return reshape(transpose(in[0], 0, 1), {12}); }, {input({3, 4}, 9)});
}
