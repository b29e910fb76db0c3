// Library errors about a value the caller chose are OptionErrors that name the value in the
// library's words ("learning rate"), never a command-line flag: the CLI adds the flag.
#include "seatorch/core/error.hpp"
#include "seatorch/core/rng.hpp"
#include "seatorch/data/registry.hpp"
#include "seatorch/kernels/matmul.hpp"
#include "seatorch/nn/mlp.hpp"
#include "seatorch/train/optimizer.hpp"
#include "seatorch/train/scalar_trainer.hpp"
#include "seatorch/train/tensor_trainer.hpp"

#include <catch2/catch.hpp>

#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace {

struct Refusal {
  std::string value;
  std::string message;
};

Refusal refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const seatorch::core::OptionError& e) {
    return {e.value(), e.what()};
  }
  FAIL("no OptionError");
  return {};
}

void check_refusal(const std::function<void()>& f, const std::string& value, const std::string& message) {
  const Refusal r = refusal(f);
  CHECK(r.value == value);
  CHECK(r.message == message);
  CHECK(r.message.find("--") == std::string::npos);
}

}  // namespace

TEST_CASE("the trainers, the optimizer and the MLP name the values they refuse", "[train]") {
  namespace train = seatorch::train;
  const seatorch::data::DataSplit data = seatorch::data::load_dataset("xor");
  train::TensorTrainConfig tensor;
  tensor.hidden = {4};
  tensor.epochs = 1;
  tensor.lr = -1.0;
  check_refusal([&] { train::train_tensor(data, tensor); }, "learning rate",
                "the learning rate must be positive and finite, got -1");
  tensor.lr = std::numeric_limits<double>::infinity();
  check_refusal([&] { train::train_tensor(data, tensor); }, "learning rate",
                "the learning rate must be positive and finite, got inf");
  tensor.lr = 1e300;  // finite, but infinite as the float the optimizer applies
  check_refusal([&] { train::train_tensor(data, tensor); }, "learning rate",
                "the learning rate must be at most 3.4028235e+38 (float's largest value) for the tensor engine, got "
                "1e+300");
  tensor.lr = 0.1;
  tensor.hidden = {4, 0};
  check_refusal([&] { train::train_tensor(data, tensor); }, "hidden widths",
                "every hidden-layer width must be in 1..65536, got 0");
  tensor.hidden = {4, std::size_t{1} << 40};  // 784 x 2^40 floats: refused by name, not by an allocation
  check_refusal([&] { train::train_tensor(data, tensor); }, "hidden widths",
                "every hidden-layer width must be in 1..65536, got 1099511627776");
  tensor.hidden = {4};
  tensor.epochs = 0;
  check_refusal([&] { train::train_tensor(data, tensor); }, "epochs", "the number of epochs must be at least 1");

  train::ScalarTrainConfig scalar;
  scalar.hidden = {4};
  scalar.lr = 0.0;
  check_refusal([&] { train::train_scalar(data, scalar); }, "learning rate",
                "the learning rate must be positive and finite, got 0");

  train::OptimizerOptions options;
  options.momentum = -0.5;
  check_refusal([&] { train::Optimizer({}, options); }, "momentum",
                "the momentum must be a finite number >= 0, got -0.5");
  // NaN compares false with everything: a check written as `< 0` let it through.
  options.momentum = std::numeric_limits<double>::quiet_NaN();
  check_refusal([&] { train::Optimizer({}, options); }, "momentum",
                "the momentum must be a finite number >= 0, got nan");
  options.momentum = 0.0;
  options.weight_decay = std::numeric_limits<double>::infinity();
  check_refusal([&] { train::Optimizer({}, options); }, "weight decay",
                "the weight decay must be a finite number >= 0, got inf");
  options.weight_decay = -1.0;
  check_refusal([&] { train::Optimizer({}, options); }, "weight decay",
                "the weight decay must be a finite number >= 0, got -1");
  options.weight_decay = 0.0;
  options.nesterov = true;
  check_refusal([&] { train::Optimizer({}, options); }, "momentum",
                "Nesterov momentum needs a momentum > 0 and no dampening");

  seatorch::core::Rng rng(0);
  const std::vector<std::size_t> sizes{2, 3, 2};
  check_refusal([&] { seatorch::nn::Mlp(sizes, 1.5, rng); }, "dropout",
                "the dropout probability must be in [0, 1), got 1.5");
}

TEST_CASE("the kernel and data set choices name the values they refuse", "[train]") {
  const Refusal kernel = refusal([] { seatorch::kernels::select_kernel("nope"); });
  CHECK(kernel.value == "matmul kernel");
  CHECK_THAT(kernel.message, Catch::StartsWith("no matmul kernel 'nope' on this CPU; choose one of: ref"));
  // Another origin than a caller's choice is a plain InputError that names it.
  CHECK_THROWS_WITH(seatorch::kernels::require_kernel("nope", "SEATORCH_KERNEL"),
                    Catch::StartsWith("SEATORCH_KERNEL: no matmul kernel 'nope'"));

  const Refusal data_set = refusal([] { seatorch::data::load_dataset("imagenet"); });
  CHECK(data_set.value == "data set");
  seatorch::data::DataOptions csv;
  csv.name = "csv";
  const Refusal file = refusal([&] { seatorch::data::load_dataset(csv); });
  CHECK(file.value == "CSV file");
  CHECK(file.message.find("--") == std::string::npos);
}
