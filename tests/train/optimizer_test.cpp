// Optimizers against PyTorch: the golden values below were produced by torch 1.13.1
// (Debian's python3-torch) from p = [0.5, -1, 2] with the three gradients kGrads set by
// hand before each opt.step(); e.g. for the momentum row:
//   p = torch.nn.Parameter(torch.tensor([0.5, -1.0, 2.0]))
//   opt = torch.optim.SGD([p], lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)
//   for g in grads: p.grad = torch.tensor(g); opt.step()
// Also: state round trips through named buffers, a step split around the backward (the
// first layer's weights updated inside it) against the step after it, and learning-rate
// schedules.
#include "../same_bits.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/core/rng.hpp"
#include "seatorch/nn/mlp.hpp"
#include "seatorch/tensor/elementwise.hpp"
#include "seatorch/tensor/loss.hpp"
#include "seatorch/tensor/matmul.hpp"
#include "seatorch/tensor/reduce.hpp"
#include "seatorch/train/lr_schedule.hpp"
#include "seatorch/train/optimizer.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <optional>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

using seatorch::train::Optimizer;
using seatorch::train::OptimizerKind;
using seatorch::train::OptimizerOptions;
using seatorch::tensor::Tensor;
using seatorch::tensor::WeightLayout;

namespace {

// PyTorch and we both compute in float; only the order of a few roundings may differ.
constexpr double kGoldenTolerance = 2e-7;

const std::array<std::array<float, 3>, 3> kGrads{{{0.3f, -0.2f, 0.1f}, {-0.5f, 0.4f, 0.25f}, {0.05f, 0.6f, -0.35f}}};

Tensor run(const OptimizerOptions& options, double lr, std::size_t steps = 3) {
  Tensor p = Tensor::from({0.5f, -1.0f, 2.0f}, {3});
  p.set_requires_grad(true);
  Optimizer opt({{"p", p}}, options);
  for (std::size_t s = 0; s < steps; ++s) {
    opt.zero_grad();
    p.backward(Tensor::from<float>(kGrads[s], {3}));  // a leaf's gradient is its seed
    opt.step(lr);
  }
  return p;
}

void check_golden(const Tensor& p, const std::array<float, 3>& expected) {
  const std::vector<float> got = p.values();
  for (std::size_t i = 0; i < 3; ++i) {
    INFO("element " << i << ": got " << got[i] << ", PyTorch " << expected[i]);
    CHECK(got[i] == Approx(expected[i]).margin(kGoldenTolerance));
  }
}

}  // namespace

TEST_CASE("SGD variants match PyTorch's updates", "[train]") {
  check_golden(run({}, 0.1), {0.514999986f, -1.08000004f, 2.0f});
  OptimizerOptions momentum;
  momentum.momentum = 0.9;
  momentum.dampening = 0.1;
  momentum.weight_decay = 0.01;
  check_golden(run(momentum, 0.1), {0.497104198f, -1.06292021f, 1.95107293f});
  OptimizerOptions nesterov;
  nesterov.momentum = 0.9;
  nesterov.nesterov = true;
  nesterov.weight_decay = 0.01;
  check_golden(run(nesterov, 0.1), {0.518940687f, -1.14564633f, 1.94848311f});
}

TEST_CASE("Adam and AdamW match PyTorch's updates", "[train]") {
  OptimizerOptions adam;
  adam.kind = OptimizerKind::kAdam;
  adam.weight_decay = 0.1;
  check_golden(run(adam, 0.01), {0.492029309f, -0.995687246f, 1.97444904f});
  OptimizerOptions adamw = adam;
  adamw.kind = OptimizerKind::kAdamW;
  check_golden(run(adamw, 0.01), {0.49316901f, -0.997494042f, 1.97527516f});
  OptimizerOptions betas;
  betas.kind = OptimizerKind::kAdam;
  betas.beta1 = 0.8;
  betas.beta2 = 0.99;
  betas.eps = 1e-3;
  check_golden(run(betas, 0.05), {0.477185935f, -1.00860298f, 1.90955281f});
}

TEST_CASE("optimizer state round-trips through named buffers and resumes exactly", "[train]") {
  for (OptimizerKind kind : {OptimizerKind::kSgd, OptimizerKind::kAdam}) {
    OptimizerOptions options;
    options.kind = kind;
    options.momentum = kind == OptimizerKind::kSgd ? 0.9 : 0.0;
    const Tensor straight = run(options, 0.05, 3);

    // Two steps, save, then a fresh optimizer loads the state and takes the third step.
    Tensor q = Tensor::from({0.5f, -1.0f, 2.0f}, {3});
    q.set_requires_grad(true);
    Optimizer replay({{"0.weight", q}}, options);
    for (std::size_t s = 0; s < 2; ++s) {
      replay.zero_grad();
      q.backward(Tensor::from<float>(kGrads[s], {3}));
      replay.step(0.05);
    }
    const seatorch::nn::StateDict state = replay.state();
    CHECK(seatorch::nn::find_buffer(state, "step")->data == std::vector<float>{2.0f});
    CHECK(seatorch::nn::find_buffer(state, kind == OptimizerKind::kSgd ? "0.weight.momentum_buffer"
                                                                       : "0.weight.exp_avg_sq") != nullptr);
    Optimizer resumed({{"0.weight", q}}, options);
    resumed.load_state(state);
    resumed.zero_grad();
    q.backward(Tensor::from<float>(kGrads[2], {3}));
    resumed.step(0.05);
    INFO("optimizer " << seatorch::train::optimizer_name(kind));
    CHECK(q.values() == straight.values());
    CHECK_THROWS_AS(resumed.load_state({{"step", {1}, {1.0f}}, {"1.bias.exp_avg", {3}, {0, 0, 0}}}),
                    seatorch::core::InputError);
  }
}

TEST_CASE("a parameter stored transposed keeps its state in the parameter's layout", "[train]") {
  // W (2, 3) held as Wᵀ (3, 2), as nn::Linear holds it: SGD's first momentum buffer is the
  // gradient (PyTorch), and the state dict gives it as W's (2, 3), rows of W.
  Tensor wt = Tensor::from({1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f}, {3, 2});
  wt.set_requires_grad(true);
  OptimizerOptions options;
  options.momentum = 0.9;
  Optimizer sgd({{"0.weight", wt, WeightLayout::kInOut}}, options);
  sgd.zero_grad();
  wt.backward(Tensor::from({0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f}, {3, 2}));  // dWᵀ; dW = its transpose
  sgd.step(0.5);
  const seatorch::nn::StateDict state = sgd.state();
  const seatorch::nn::NamedBuffer* buffer = seatorch::nn::find_buffer(state, "0.weight.momentum_buffer");
  REQUIRE(buffer != nullptr);
  CHECK(buffer->shape == std::vector<std::size_t>{2, 3});
  CHECK(buffer->data == std::vector<float>{0.1f, 0.3f, 0.5f, 0.2f, 0.4f, 0.6f});
  // Loaded back, into the transposed layout: a second step from each gives the same weights.
  Tensor copy = Tensor::from<float>(wt.values(), {3, 2});
  copy.set_requires_grad(true);
  Optimizer resumed({{"0.weight", copy, WeightLayout::kInOut}}, options);
  resumed.load_state(state);
  for (auto [opt, p] : {std::pair{&sgd, wt}, std::pair{&resumed, copy}}) {
    opt->zero_grad();
    p.backward(Tensor::from({0.6f, -0.5f, 0.4f, -0.3f, 0.2f, -0.1f}, {3, 2}));
    opt->step(0.5);
  }
  CHECK(copy.values() == wt.values());
  // A buffer in the stored layout's shape is another parameter's.
  seatorch::nn::StateDict stored = state;
  seatorch::nn::NamedBuffer* momentum =
      &*std::find_if(stored.begin(), stored.end(), [](const auto& b) { return b.name == "0.weight.momentum_buffer"; });
  momentum->shape = {3, 2};
  CHECK_THROWS_WITH(resumed.load_state(stored),
                    Catch::Contains("0.weight.momentum_buffer") && Catch::Contains("(2, 3)"));
}

TEST_CASE("a parameter stored in panels keeps its state in the parameter's layout", "[train]") {
  // W (4, 3) held as Wᵀ's columns in two panels of 2, (2, 3, 2): panel p holds W's rows 2p and
  // 2p + 1 as columns. SGD's first momentum buffer is the gradient, given as W's (4, 3).
  const std::vector<float> w_rows{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};  // W (4, 3)
  Tensor held = seatorch::tensor::weight_held(Tensor::from<float>(w_rows, {4, 3}), WeightLayout::kInOutPanels, 2);
  REQUIRE(held.shape() == seatorch::tensor::Shape{2, 3, 2});
  CHECK(held.values() == std::vector<float>{1, 4, 2, 5, 3, 6, 7, 10, 8, 11, 9, 12});
  held.set_requires_grad(true);
  OptimizerOptions options;
  options.momentum = 0.9;
  Optimizer sgd({{"0.weight", held, WeightLayout::kInOutPanels}}, options);
  sgd.zero_grad();
  const std::vector<float> g_rows{0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f, 1.0f, 1.1f, 1.2f};  // dW (4, 3)
  held.backward(seatorch::tensor::weight_held(Tensor::from<float>(g_rows, {4, 3}), WeightLayout::kInOutPanels, 2));
  sgd.step(0.5);
  const seatorch::nn::StateDict state = sgd.state();
  const seatorch::nn::NamedBuffer* buffer = seatorch::nn::find_buffer(state, "0.weight.momentum_buffer");
  REQUIRE(buffer != nullptr);
  CHECK(buffer->shape == std::vector<std::size_t>{4, 3});
  CHECK(buffer->data == g_rows);
  // Loaded back into the panels: a second step from each gives the same weights.
  Tensor copy = Tensor::from<float>(held.values(), {2, 3, 2});
  copy.set_requires_grad(true);
  Optimizer resumed({{"0.weight", copy, WeightLayout::kInOutPanels}}, options);
  resumed.load_state(state);
  for (auto [opt, p] : {std::pair{&sgd, held}, std::pair{&resumed, copy}}) {
    opt->zero_grad();
    p.backward(Tensor::from({0.6f, -0.5f, 0.4f, -0.3f, 0.2f, -0.1f, 0.6f, -0.5f, 0.4f, -0.3f, 0.2f, -0.1f}, {2, 3, 2}));
    opt->step(0.5);
  }
  CHECK(copy.values() == held.values());
}

TEST_CASE("options PyTorch rejects are input errors", "[train]") {
  Tensor p = Tensor::zeros({2});
  p.set_requires_grad(true);
  OptimizerOptions nesterov;
  nesterov.nesterov = true;
  CHECK_THROWS_AS(Optimizer({{"p", p}}, nesterov), seatorch::core::InputError);
  OptimizerOptions betas;
  betas.kind = OptimizerKind::kAdam;
  betas.beta1 = 1.0;
  CHECK_THROWS_AS(Optimizer({{"p", p}}, betas), seatorch::core::InputError);
  CHECK(seatorch::train::parse_optimizer("adamw") == OptimizerKind::kAdamW);
  CHECK_THROWS_AS(seatorch::train::parse_optimizer("rmsprop"), seatorch::core::InputError);
  // A rate the float update would see as infinite, refused before any parameter moves.
  Optimizer sgd({{"p", p}}, OptimizerOptions{});
  p.backward(Tensor::from({1.0f, -1.0f}, {2}));
  CHECK_THROWS_WITH(sgd.step(1e300), Catch::Contains("learning rate") && Catch::Contains("1e+300"));
  CHECK_THROWS_AS(sgd.begin_step(-0.1), seatorch::core::InputError);
  CHECK(p.values() == std::vector<float>{0.0f, 0.0f});
  CHECK(sgd.steps() == 0);
}

TEST_CASE("learning-rate schedules follow their closed forms", "[train]") {
  using seatorch::train::LrSchedule;
  using seatorch::train::ScheduleKind;
  using seatorch::train::scheduled_lr;
  const LrSchedule constant{ScheduleKind::kConstant};
  CHECK(scheduled_lr(constant, 0.1, 57, 10, 100) == 0.1);
  const LrSchedule step{ScheduleKind::kStep, 2, 0.5};  // halve every 2 epochs of 10 steps
  CHECK(scheduled_lr(step, 0.1, 0, 10, 100) == Approx(0.1));
  CHECK(scheduled_lr(step, 0.1, 19, 10, 100) == Approx(0.1));
  CHECK(scheduled_lr(step, 0.1, 20, 10, 100) == Approx(0.05));
  CHECK(scheduled_lr(step, 0.1, 45, 10, 100) == Approx(0.025));
  const LrSchedule cosine{ScheduleKind::kCosine};
  CHECK(scheduled_lr(cosine, 0.1, 0, 10, 100) == Approx(0.1));
  CHECK(scheduled_lr(cosine, 0.1, 50, 10, 100) == Approx(0.05));
  CHECK(scheduled_lr(cosine, 0.1, 25, 10, 100) == Approx(0.05 * (1 + std::cos(std::numbers::pi / 4))));
  CHECK(scheduled_lr(cosine, 0.1, 100, 10, 100) == Approx(0.0).margin(1e-12));
  // torch.optim.lr_scheduler.OneCycleLR(max_lr=0.1, total_steps=100): starts at 0.1 / 25,
  // peaks at step 29 (0.3 * 100 - 1), is halfway down at step 64 and ends at 0.1 / 25 / 1e4.
  const LrSchedule one_cycle{ScheduleKind::kOneCycle};
  CHECK(scheduled_lr(one_cycle, 0.1, 0, 10, 100) == Approx(0.004));
  CHECK(scheduled_lr(one_cycle, 0.1, 29, 10, 100) == Approx(0.1));
  CHECK(scheduled_lr(one_cycle, 0.1, 64, 10, 100) == Approx(0.0500002));
  CHECK(scheduled_lr(one_cycle, 0.1, 99, 10, 100) == Approx(4e-7));
  CHECK(scheduled_lr(one_cycle, 0.1, 10, 10, 100) < scheduled_lr(one_cycle, 0.1, 20, 10, 100));
  CHECK(seatorch::train::parse_schedule("onecycle") == ScheduleKind::kOneCycle);
  CHECK(seatorch::train::parse_schedule("cosine") == ScheduleKind::kCosine);
  CHECK_THROWS_AS(seatorch::train::parse_schedule("linear"), seatorch::core::InputError);
}

TEST_CASE("a step schedule that would grow the rate past a float is refused before training", "[train]") {
  using seatorch::train::check_schedule;
  using seatorch::train::LrSchedule;
  using seatorch::train::ScheduleKind;
  // gamma 1e300 made the second epoch's rate infinite, and the run stopped there with an
  // optimizer error instead of a word about --gamma.
  CHECK_THROWS_WITH(check_schedule({ScheduleKind::kStep, 1, 1e300}, 0.02, 3),
                    Catch::Contains("would grow past float's largest value") && Catch::Contains("1e+300^2"));
  CHECK_THROWS_WITH(check_schedule({ScheduleKind::kStep, 1, 1e30}, 0.02, 3), Catch::Contains("0.02 x 1e+30^2"));
  CHECK_THROWS_AS(check_schedule({ScheduleKind::kStep, 1, std::nan("")}, 0.02, 3), seatorch::core::OptionError);
  CHECK_THROWS_AS(check_schedule({ScheduleKind::kStep, 0, 0.5}, 0.02, 3), seatorch::core::OptionError);
  CHECK_NOTHROW(check_schedule({ScheduleKind::kStep, 1, 10.0}, 0.02, 3));       // 2 in the last epoch
  CHECK_NOTHROW(check_schedule({ScheduleKind::kStep, 1, 1e300}, 0.02, 1));      // never applied
  CHECK_NOTHROW(check_schedule({ScheduleKind::kStep, 10, 1e30}, 0.02, 10));     // the last epoch is the 10th: no decay
  CHECK_NOTHROW(check_schedule({ScheduleKind::kCosine, 1, 1e300}, 0.02, 100));  // gamma unused
}

namespace {

// Parameters and optimizer state after `steps` steps of an MLP on a batch that is four fifths
// zeros (so its first layer runs on the nonzeros), the step taken after the backward (step)
// or around it (begin_step, finish_step). `updated_in_backward` counts the parameters the
// backwards updated themselves.
struct Trained {
  std::vector<std::vector<float>> parameters;
  seatorch::nn::StateDict state;
  std::size_t updated_in_backward = 0;
};

Trained train_steps(std::span<const std::size_t> sizes, const OptimizerOptions& options, bool around_backward) {
  constexpr std::size_t kBatch = 40;
  constexpr std::size_t kSteps = 3;
  seatorch::core::Rng rng(5);
  seatorch::nn::Mlp model(sizes, 0.0, rng);
  Optimizer opt(model.parameters(), options);
  Trained out;
  for (std::size_t s = 0; s < kSteps; ++s) {
    std::vector<float> x(kBatch * sizes.front());
    for (float& v : x) v = rng.uniform(0.0, 1.0) < 0.8 ? 0.0f : static_cast<float>(rng.uniform(0.0, 1.0));
    std::vector<std::int32_t> y(kBatch);
    for (std::int32_t& label : y) label = static_cast<std::int32_t>(rng.below(sizes.back()));
    const Tensor loss = seatorch::tensor::cross_entropy(model.forward(Tensor::from<float>(x, {kBatch, sizes.front()})),
                                                        Tensor::from<std::int32_t>(y, {kBatch}));
    opt.zero_grad();
    if (around_backward) {
      opt.begin_step(0.05);
      loss.backward();
      for (const seatorch::nn::Parameter& p : model.parameters()) {
        if (p.tensor.updated_in_backward()) {
          ++out.updated_in_backward;
          CHECK_FALSE(p.tensor.grad().defined());
        }
      }
      opt.finish_step();
    } else {
      loss.backward();
      opt.step(0.05);
    }
  }
  for (const seatorch::nn::Parameter& p : model.parameters()) out.parameters.push_back(p.tensor.values());
  out.state = opt.state();
  return out;
}

}  // namespace

TEST_CASE("a step begun before the backward, which updates the first layer's weights, is the step after it",
          "[train]") {
  // 784-128-10 holds its first weights as Wᵀ, a 784-256-... one in panels of 128.
  const std::vector<std::vector<std::size_t>> models{{100, 128, 10}, {100, 256, 24, 10}};
  OptimizerOptions sgd;
  sgd.momentum = 0.9;
  sgd.weight_decay = 1e-3;
  OptimizerOptions adam;
  adam.kind = OptimizerKind::kAdam;
  OptimizerOptions adamw = adam;
  adamw.kind = OptimizerKind::kAdamW;
  adamw.weight_decay = 0.01;
  for (const std::vector<std::size_t>& sizes : models) {
    for (const OptimizerOptions& options : {sgd, adam, adamw}) {
      for (const std::size_t threads : {1, 2}) {
        INFO(sizes[1] << " hidden, " << seatorch::train::optimizer_name(options.kind) << ", " << threads
                      << " thread(s)");
        const seatorch::core::ScopedThreads count(threads);
        const Trained after = train_steps(sizes, options, false);
        const Trained around = train_steps(sizes, options, true);
        CHECK(around.updated_in_backward == 3);  // the first layer's weights, once a step
        REQUIRE(around.parameters.size() == after.parameters.size());
        for (std::size_t i = 0; i < after.parameters.size(); ++i) {
          const std::optional<std::size_t> d =
              seatorch::test::first_bit_difference(around.parameters[i], after.parameters[i]);
          INFO("parameter " << i);
          CHECK_FALSE(d.has_value());
          if (d)
            FAIL_CHECK("element " << *d << ": " << around.parameters[i][*d] << " against " << after.parameters[i][*d]);
        }
        REQUIRE(around.state.size() == after.state.size());
        for (std::size_t i = 0; i < after.state.size(); ++i) {
          INFO("state buffer " << after.state[i].name);
          CHECK(around.state[i].name == after.state[i].name);
          CHECK_FALSE(seatorch::test::first_bit_difference(around.state[i].data, after.state[i].data).has_value());
        }
      }
    }
  }
}

// A first layer on sparse data: its weight gradient is the product that can apply an armed
// update (tensor::linear over the input's nonzeros, W held as Wᵀ).
struct SparseLayer {
  Tensor w = Tensor::from<float>(std::vector<float>(20 * 128, 0.01f), {20, 128});  // Wᵀ (in, out)
  Tensor bias = Tensor::zeros({128});
  Tensor input;  // (8, 20), one element in 7 nonzero

  SparseLayer() {
    w.set_requires_grad(true);
    std::vector<float> x(8 * 20, 0.0f);
    for (std::size_t i = 0; i < x.size(); i += 7) x[i] = 1.0f;
    input = Tensor::from<float>(x, {8, 20});
  }
  [[nodiscard]] Tensor forward() const { return seatorch::tensor::linear(input, w, bias, WeightLayout::kInOut); }
};

TEST_CASE("a leaf whose update the backward applied takes no second gradient contribution", "[train]") {
  // One weight read by two linear ops on sparse data: the first backward rule to reach it
  // updates it, the second has a contribution left and must not add it to nothing.
  const SparseLayer layer;
  const Tensor out = seatorch::tensor::add(layer.forward(), layer.forward());
  OptimizerOptions options;
  Optimizer opt({{"w", layer.w}}, options);
  opt.begin_step(0.1);
  CHECK_THROWS_AS(seatorch::tensor::sum(out).backward(), std::logic_error);
}

TEST_CASE("an optimizer destroyed between begin_step and finish_step leaves no update armed", "[train]") {
  // A backward that throws skips finish_step; the parameters outlive the optimizer, and the
  // next backward must store their gradient, not hand it to the dead optimizer's update.
  const SparseLayer layer;
  {
    Optimizer opt({{"w", layer.w}}, OptimizerOptions{});
    opt.begin_step(0.1);
  }
  seatorch::tensor::sum(layer.forward()).backward();
  CHECK_FALSE(layer.w.updated_in_backward());
  CHECK(layer.w.grad().defined());
}
