// Reverse-mode autodiff over tensors: the graph node every op records, the grad mode
// switch, and the helpers backward rules use to deliver gradients to their inputs.
//
// An op computes its output eagerly and, when grad mode is on and an input requires grad,
// attaches a Node to it: the inputs (which keeps them alive), anything else its backward
// rule needs, and a pointer to that rule, defined right next to the op's forward in the
// op's own file. Tensor::backward() sorts the graph iteratively (no recursion, however deep)
// and calls the rules in reverse topological order. Every rule runs with grad mode off, so
// backward builds no graph; higher-order gradients are deliberately not supported.
//
// Gradients flow into contiguous F32 buffers of each input's shape. A rule asks for its
// input's buffer with grad_slot(): a fresh one is uninitialized and the rule overwrites it,
// an existing one already holds other consumers' contributions and the rule adds to it.
// That is how a matmul writes its weight gradient straight into the parameter's .grad with
// the kernel's accumulate flag, without a zero fill or a temporary.
#pragma once

#include "seatorch/tensor/tensor.hpp"

#include <array>
#include <memory>

namespace seatorch::tensor {

// Backward rule of one op: `out` is the op's output, `grad` is d(root)/d(out) (contiguous,
// out's shape; the rule owns it and may hand it on). It adds d(root)/d(input) into each
// input that requires grad.
using BackwardFn = void (*)(const Node& node, const Tensor& out, Tensor grad);

struct Node {
  const char* name = "";  // the op, for tests and diagnostics
  BackwardFn backward = nullptr;
  std::array<Tensor, 3> inputs;  // unused slots stay undefined
  Tensor saved;                  // one extra tensor the rule needs (softmax, argmax indices)
  // What a rule keeps that is not a tensor, shared with whoever made it (linear's: the
  // nonzeros of its data input, kernels::SparseRows, which the weight gradient reads again).
  std::shared_ptr<const void> state;
  Dims attrs;  // small op parameters: axes, a permutation, a slice start
};

// Grad mode is on by default; NoGradGuard turns it off for its scope (evaluation, the
// optimizer's in-place updates). Guards nest. The mode is per thread.
[[nodiscard]] bool is_grad_enabled();

class NoGradGuard {
 public:
  NoGradGuard();
  ~NoGradGuard();
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

// ---- for op implementations ---------------------------------------------------------

// Attaches a node to `out` when grad mode is on and an input requires grad; returns it so
// the op can fill `saved`, `state` and `attrs`, or nullptr when nothing was recorded.
Node* record(const Tensor& out, const char* name, BackwardFn backward, const Tensor& a, const Tensor& b = {},
             const Tensor& c = {});

// True when a backward rule should produce a gradient for this input.
[[nodiscard]] inline bool needs_grad(const Tensor& input) { return input.defined() && input.requires_grad(); }

// The gradient buffer of `input`: contiguous F32 with input's shape. `accumulate` false:
// it is fresh and uninitialized, overwrite every element; true: add into it.
struct GradSlot {
  float* data = nullptr;
  bool accumulate = false;
};
GradSlot grad_slot(const Tensor& input);
// The same, zero-filled when fresh (so always accumulate), for rules that touch only part
// of it (slice, max).
float* zeroed_grad_slot(const Tensor& input);
// The update armed on `input` (Tensor::update_in_backward) for a rule that makes the input's
// whole gradient in one product and can apply the update there instead of storing it; null
// when none is armed or the input already has a gradient. Marks the update applied: the rule
// must then apply it to every element.
const kernels::BlockUpdate* take_update(const Tensor& input);
// Adds `contribution` (input's shape, any strides) to input's gradient. A fresh gradient
// adopts a contiguous contribution that nothing else references instead of copying it.
void accumulate_grad(const Tensor& input, Tensor contribution);

}  // namespace seatorch::tensor
