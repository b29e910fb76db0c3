// Optimizers for the tensor engine: SGD (momentum, Nesterov, weight decay), Adam and AdamW,
// with PyTorch's exact update formulas (torch.optim, single-tensor path, version 1.13).
//
//   SGD:   d = g + wd*p;  b = d on the first step, else b = mu*b + (1-dampening)*d;
//          d = d + mu*b (Nesterov) or d = b (plain momentum);  p = p - lr*d
//   Adam:  g = g + wd*p;  m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g*g;
//          p = p - (lr / (1-b1^t)) * m / (sqrt(v) / sqrt(1-b2^t) + eps)
//   AdamW: p = p * (1 - lr*wd), then Adam without the wd*p term.
//
// Per-parameter state (momentum buffers, first and second moments) lives in tensors of the
// parameter's shape and is exposed as named buffers ("0.weight.momentum_buffer",
// "0.weight.exp_avg", "0.weight.exp_avg_sq", and "step"), so a checkpoint can save it and
// a resumed run can continue bit for bit. Kernels: assert contiguity (parameters must be
// contiguous leaves, checked at construction; gradients always are); each update is one
// plain loop over the parameter, its gradient and its state, which the compiler vectorizes.
// Deliberately not here: parameter groups, AMSGrad, maximize, gradient clipping.
#pragma once

#include "seatorch/kernels/optimizer_update.hpp"
#include "seatorch/nn/state_dict.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace seatorch::train {

enum class OptimizerKind { kSgd, kAdam, kAdamW };

// "sgd", "adam", "adamw"; InputError otherwise.
OptimizerKind parse_optimizer(std::string_view name);
std::string_view optimizer_name(OptimizerKind kind);

struct OptimizerOptions {
  OptimizerKind kind = OptimizerKind::kSgd;
  double momentum = 0.0;      // SGD
  double dampening = 0.0;     // SGD
  bool nesterov = false;      // SGD; needs momentum > 0 and dampening 0
  double beta1 = 0.9;         // Adam, AdamW
  double beta2 = 0.999;       // Adam, AdamW
  double eps = 1e-8;          // Adam, AdamW
  double weight_decay = 0.0;  // SGD and Adam: L2 added to the gradient; AdamW: decoupled
};

class Optimizer {
 public:
  // Throws InputError for options PyTorch would reject (negative rates, Nesterov without
  // momentum, betas outside [0, 1)).
  Optimizer(std::vector<nn::Parameter> parameters, OptimizerOptions options);
  // Neither copied nor moved: begin_step hands each parameter a pointer into this optimizer.
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  // Takes back any update a begin_step left armed (a backward that threw before finish_step),
  // so that no parameter keeps a pointer into a destroyed optimizer.
  ~Optimizer();

  // Drops every parameter's gradient (set to none), so the next backward writes fresh ones.
  void zero_grad();
  // One update of every parameter with a gradient, at learning rate `lr`. Parameters
  // without a gradient are skipped, as in PyTorch.
  void step(double lr);
  // The same step split around the backward that makes the gradients, which then applies
  // the update of each parameter whose whole gradient one product makes (the first layer's
  // weights; Tensor::update_in_backward) as it makes it, instead of storing the gradient for
  // the step to read back. finish_step() updates the other parameters. The parameters come
  // out bit for bit as from step() after the backward; the gradients of those updated in the
  // backward stay undefined. Call begin_step(lr), backward(), finish_step(), in that order.
  void begin_step(double lr);
  void finish_step();

  [[nodiscard]] std::uint64_t steps() const { return steps_; }
  [[nodiscard]] const OptimizerOptions& options() const { return options_; }

  // The optimizer's state as named buffers (see the file comment for the names).
  [[nodiscard]] nn::StateDict state() const;
  // Restores a state() of an optimizer of the same kind over the same parameters.
  void load_state(const nn::StateDict& state);

 private:
  // Tensors rather than vectors for their 64-byte alignment: at a vector's 16 bytes half the
  // update loop's 32-byte loads and stores of a buffer cross a cache line (on Zen 4, an SGD
  // step over 101,770 parameters took 18.1 us against 15.6 us aligned; Adam over 235,146,
  // 110 us against 98 us).
  struct Slot {
    tensor::Tensor first;   // the parameter's shape: SGD's momentum buffer, or Adam's exp_avg;
                            //   undefined for SGD without momentum
    tensor::Tensor second;  // the parameter's shape: Adam's exp_avg_sq; undefined for SGD
    bool started = false;   // SGD: the momentum buffer has been initialized
  };

  // Each parameter's update at this step's learning rate, its gradient not yet known.
  void prepare(double lr);
  void prepare_sgd(std::size_t i, float lr);
  void prepare_adam(std::size_t i, double lr);

  std::vector<nn::Parameter> parameters_;
  std::vector<Slot> slots_;  // (parameters)
  // (parameters) each: the step under way's updates (prepare fills one of the two), and each
  // parameter's BlockUpdate of it, made once, where a backward can find it
  std::vector<kernels::SgdUpdate> sgd_;
  std::vector<kernels::AdamUpdate> adam_;
  std::vector<kernels::BlockUpdate> blocks_;
  OptimizerOptions options_;
  std::uint64_t steps_ = 0;
};

}  // namespace seatorch::train
