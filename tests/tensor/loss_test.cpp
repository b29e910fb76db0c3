// Fused log-softmax + cross-entropy: value against a double-precision closed form (also
// for logits that would overflow a naive exp), gradient against finite differences and
// against (softmax - onehot) / batch, and its input errors.
#include "gradcheck.hpp"

#include "seatorch/core/error.hpp"

#include <cmath>

using namespace seatorch::tensor;

namespace {

// mean_i (logsumexp(x_i) - x_i[y_i]) in double.
double reference_loss(const std::vector<float>& x, const std::vector<std::int32_t>& y, std::size_t classes) {
  double total = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    double shift = x[i * classes];
    for (std::size_t j = 0; j < classes; ++j) shift = std::max(shift, static_cast<double>(x[i * classes + j]));
    double s = 0.0;
    for (std::size_t j = 0; j < classes; ++j) s += std::exp(x[i * classes + j] - shift);
    total += shift + std::log(s) - x[i * classes + static_cast<std::size_t>(y[i])];
  }
  return total / static_cast<double>(y.size());
}

}  // namespace

TEST_CASE("cross_entropy equals mean logsumexp minus the label's logit even for huge logits", "[tensor]") {
  const std::vector<float> x{2.0f, -1.0f, 0.5f, 1000.0f, 999.0f, -1000.0f};
  const std::vector<std::int32_t> y{2, 1};
  Tensor logits = Tensor::from<float>(x, {2, 3});
  logits.set_requires_grad(true);
  const Tensor labels = Tensor::from<std::int32_t>(y, {2});
  const Tensor loss = cross_entropy(logits, labels);
  CHECK(std::isfinite(loss.item()));
  CHECK(loss.item() == Approx(reference_loss(x, y, 3)).margin(1e-5));
  loss.backward();
  const std::vector<float> grad = logits.grad().values();
  for (std::size_t i = 0; i < 2; ++i) {
    double shift = -1e30, s = 0.0;
    for (std::size_t j = 0; j < 3; ++j) shift = std::max(shift, static_cast<double>(x[i * 3 + j]));
    for (std::size_t j = 0; j < 3; ++j) s += std::exp(x[i * 3 + j] - shift);
    for (std::size_t j = 0; j < 3; ++j) {
      const double expected =
          (std::exp(x[i * 3 + j] - shift) / s - (static_cast<std::int32_t>(j) == y[i] ? 1.0 : 0.0)) / 2.0;
      INFO("logit [" << i << "," << j << "]: autograd " << grad[i * 3 + j] << ", closed form " << expected);
      CHECK(grad[i * 3 + j] == Approx(expected).margin(1e-6));
    }
  }
}

TEST_CASE("cross_entropy gradients match finite differences on a strided input", "[tensor]") {
  seatorch::core::Rng rng(3);
  const Tensor labels = Tensor::from<std::int32_t>(std::vector<std::int32_t>{0, 3, 3, 1, 2}, {5});
  testing::check_gradients([&](const auto& in) { return cross_entropy(transpose(in[0], 0, 1), labels) * 3.0f; },
                           {testing::random_tensor({4, 5}, rng, -2.0, 2.0)});
}

TEST_CASE("cross_entropy rejects mismatched shapes and labels out of range", "[tensor]") {
  const Tensor logits = Tensor::zeros({2, 3});
  CHECK_THROWS_WITH(cross_entropy(logits, Tensor::from<std::int32_t>(std::vector<std::int32_t>{0, 3}, {2})),
                    Catch::Contains("label 3"));
  CHECK_THROWS_AS(cross_entropy(logits, Tensor::from<std::int32_t>(std::vector<std::int32_t>{0}, {1})),
                  seatorch::core::InputError);
  CHECK_THROWS_AS(cross_entropy(logits, Tensor::zeros({2})), seatorch::core::InputError);
}
