// The backward engine: grad mode, recording, an iterative topological sort, gradient
// delivery into slots, and the iterative release of a graph.
#include "seatorch/tensor/autograd.hpp"

#include "seatorch/core/error.hpp"
#include "strided.hpp"

#include <cstring>
#include <utility>
#include <vector>

namespace seatorch::tensor {
namespace {

thread_local bool grad_enabled = true;
thread_local std::uint64_t backward_pass = 0;

// A contribution nothing else can see may become the gradient itself.
bool exclusively_owned(const Tensor& t) {
  return t.use_count() == 1 && t.storage().use_count() == 1 && t.is_contiguous();
}

// Reverse post-order of the op tensors reachable from `root` through inputs that require
// grad: every tensor comes after all the tensors computed from it. An explicit stack of
// (tensor, next input) pairs replaces recursion, so depth costs heap, not call stack.
std::vector<const Tensor*> topological_order(const Tensor& root, std::uint64_t pass) {
  std::vector<const Tensor*> post_order;
  if (root.is_leaf()) return post_order;
  std::vector<std::pair<const Tensor*, std::size_t>> stack{{&root, 0}};
  root.impl()->visited = pass;
  while (!stack.empty()) {
    const Tensor* t = stack.back().first;
    const std::size_t next = stack.back().second++;
    const Node& node = *t->impl()->grad_fn;
    if (next == node.inputs.size()) {
      post_order.push_back(t);
      stack.pop_back();
      continue;
    }
    const Tensor& input = node.inputs[next];
    if (needs_grad(input) && !input.is_leaf() && input.impl()->visited != pass) {
      input.impl()->visited = pass;
      stack.emplace_back(&input, 0);
    }
  }
  return {post_order.rbegin(), post_order.rend()};
}

void run_backward(const Tensor& root, Tensor seed) {
  if (!root.requires_grad()) {
    throw core::input_error("backward() on a tensor that does not require grad: no parameter feeds it, "
                            "or it was computed under NoGradGuard");
  }
  const NoGradGuard no_grad;  // backward rules build no graph
  const std::uint64_t pass = ++backward_pass;
  const std::vector<const Tensor*> order = topological_order(root, pass);
  accumulate_grad(root, std::move(seed));
  for (const Tensor* t : order) {
    TensorImpl& impl = *t->impl();
    if (!impl.grad.defined()) continue;  // no gradient reached it (e.g. an argmax-free path)
    // Interior gradients are scratch: taken out here, so a second backward() starts afresh
    // and only leaves accumulate across calls.
    Tensor grad = std::exchange(impl.grad, Tensor());
    impl.grad_fn->backward(*impl.grad_fn, *t, std::move(grad));
  }
}

// A gradient contribution arriving after the leaf's update was applied in place of its
// gradient: the update saw only part of the gradient (a leaf read by two ops).
void expect_not_updated(const TensorImpl& impl) {
  if (impl.updated) {
    throw std::logic_error("a second gradient contribution to a leaf whose optimizer update was applied in backward");
  }
}

}  // namespace

bool is_grad_enabled() { return grad_enabled; }

NoGradGuard::NoGradGuard() : previous_(grad_enabled) { grad_enabled = false; }
NoGradGuard::~NoGradGuard() { grad_enabled = previous_; }

Node* record(const Tensor& out, const char* name, BackwardFn backward, const Tensor& a, const Tensor& b,
             const Tensor& c) {
  if (!grad_enabled || !(needs_grad(a) || needs_grad(b) || needs_grad(c))) return nullptr;
  auto node = std::make_unique<Node>();
  node->name = name;
  node->backward = backward;
  node->inputs = {a, b, c};
  TensorImpl& impl = *out.impl();
  impl.requires_grad = true;
  impl.grad_fn = std::move(node);
  return impl.grad_fn.get();
}

const kernels::BlockUpdate* take_update(const Tensor& input) {
  TensorImpl& impl = *input.impl();
  if (impl.update == nullptr || impl.grad.defined() || impl.updated) return nullptr;
  impl.updated = true;
  return impl.update;
}

GradSlot grad_slot(const Tensor& input) {
  TensorImpl& impl = *input.impl();
  expect_not_updated(impl);
  if (impl.grad.defined()) return {impl.grad.data<float>(), true};
  impl.grad = Tensor::empty(impl.shape);
  return {impl.grad.data<float>(), false};
}

float* zeroed_grad_slot(const Tensor& input) {
  const GradSlot slot = grad_slot(input);
  if (!slot.accumulate) std::memset(slot.data, 0, input.numel() * sizeof(float));
  return slot.data;
}

void accumulate_grad(const Tensor& input, Tensor contribution) {
  TensorImpl& impl = *input.impl();
  expect_not_updated(impl);
  if (!(contribution.shape() == impl.shape)) {
    throw std::logic_error(
        fmt::format("gradient of shape {} for a tensor of shape {}", contribution.shape().str(), impl.shape.str()));
  }
  if (!impl.grad.defined() && exclusively_owned(contribution)) {
    impl.grad = std::move(contribution);
    return;
  }
  detail::map1_into(grad_slot(input), impl.shape, contribution, [](float g) { return g; });
}

void Tensor::backward() const {
  if (numel() != 1) {
    throw core::input_error("backward() without a gradient needs a one-element tensor, not shape {}; "
                            "reduce it (sum, mean) or pass the output gradient",
                            shape().str());
  }
  run_backward(*this, Tensor::full(shape(), 1.0f));
}

void Tensor::backward(const Tensor& grad_output) const {
  if (!(grad_output.shape() == shape()) || grad_output.dtype() != core::DType::kF32) {
    throw core::input_error("output gradient of shape {} for a tensor of shape {}; they must match (F32)",
                            grad_output.shape().str(), shape().str());
  }
  // Copied: the seed may be adopted as a gradient, and the caller's tensor must not change.
  Tensor seed = Tensor::empty(shape());
  detail::copy_to_dense(grad_output, reinterpret_cast<std::byte*>(seed.data<float>()));
  run_backward(*this, std::move(seed));
}

TensorImpl::~TensorImpl() {
  // A default destructor would release the graph recursively, one stack frame per op, and
  // overflow on long chains. Instead, a dying node first moves the nodes of inputs that
  // only it still holds onto a work list, so each tensor dies without a graph above it.
  std::unique_ptr<Node> node = std::move(grad_fn);
  std::vector<std::unique_ptr<Node>> pending;  // allocates only when there is more than one node
  auto take = [&pending](Tensor& t) {
    if (t.defined() && t.use_count() == 1 && t.impl()->grad_fn) pending.push_back(std::move(t.impl()->grad_fn));
  };
  while (node) {
    for (Tensor& input : node->inputs) take(input);
    take(node->saved);
    node.reset();
    if (pending.empty()) break;
    node = std::move(pending.back());
    pending.pop_back();
  }
}

}  // namespace seatorch::tensor
