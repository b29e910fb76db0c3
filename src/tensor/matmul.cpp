// matmul and linear: forward and backward, each a call or two of kernels::matmul.
#include "seatorch/tensor/matmul.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/kernels/matmul.hpp"
#include "seatorch/tensor/autograd.hpp"
#include "seatorch/tensor/elementwise.hpp"
#include "seatorch/tensor/movement.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

namespace seatorch::tensor {
namespace {

using kernels::Transpose;

// A 2-D tensor as the kernel sees it: op(M) is the tensor, M is stored row-major with row
// stride ld, and `t` says whether M is the tensor or its transpose.
struct Operand {
  const float* data;
  std::size_t ld;
  Transpose t;

  [[nodiscard]] Operand transposed() const {
    return {data, ld, t == Transpose::kYes ? Transpose::kNo : Transpose::kYes};
  }
};

// The kernel reads rows with unit stride; a size-1 dimension's stride is never used, so
// such tensors fit either way. Row strides below the row length (overlapping or broadcast
// rows) are not handed to kernels.
std::optional<Operand> as_operand(const Tensor& t) {
  const std::size_t rows = t.shape()[0];
  const std::size_t cols = t.shape()[1];
  const std::size_t s0 = t.strides()[0];
  const std::size_t s1 = t.strides()[1];
  if (s1 == 1 || cols == 1) {
    const std::size_t ld = rows == 1 ? cols : s0;
    if (ld >= cols) return Operand{t.data<float>(), ld, Transpose::kNo};
  }
  if (s0 == 1 || rows == 1) {
    const std::size_t ld = cols == 1 ? rows : s1;
    if (ld >= rows) return Operand{t.data<float>(), ld, Transpose::kYes};
  }
  return std::nullopt;
}

// `t` unchanged when the kernel can read it, else its contiguous copy (a recorded op).
Tensor kernel_layout(const Tensor& t) { return as_operand(t) ? t : contiguous(t); }

// C (m, n, row stride ldc) = or += op(A) op(B), with op(A) (m, k).
void product(Operand a, Operand b, std::size_t m, std::size_t n, std::size_t k, float* c, std::size_t ldc,
             bool accumulate) {
  kernels::matmul({{m, n, k}, a.data, a.ld, a.t, b.data, b.ld, b.t, c, ldc, accumulate});
}

void expect_matrix(const Tensor& t, const char* op, const char* what) {
  expect_f32(t, op);
  if (t.rank() != 2) throw core::input_error("{}: {} must be 2-D, got shape {}", op, what, t.shape().str());
}

// ---- matmul: dA = G B^T, dB = A^T G ---------------------------------------------------
void matmul_backward(const Node& node, const Tensor& out, Tensor g) {
  const Tensor& a = node.inputs[0];
  const Tensor& b = node.inputs[1];
  const std::size_t m = out.shape()[0];
  const std::size_t n = out.shape()[1];
  const std::size_t k = a.shape()[1];
  const Operand grad{g.data<float>(), n, Transpose::kNo};
  if (needs_grad(a)) {
    const GradSlot slot = grad_slot(a);
    product(grad, as_operand(b)->transposed(), m, k, n, slot.data, k, slot.accumulate);
  }
  if (needs_grad(b)) {
    const GradSlot slot = grad_slot(b);
    product(as_operand(a)->transposed(), grad, k, n, m, slot.data, n, slot.accumulate);
  }
}

// ---- linear: dx = G W, dW = G^T x, db = sum over the batch of G -----------------------
void linear_backward(const Node& node, const Tensor& out, Tensor g) {
  const Tensor& x = node.inputs[0];
  const Tensor& w = node.inputs[1];
  const Tensor& bias = node.inputs[2];
  const std::size_t batch = out.shape()[0];
  const std::size_t outs = out.shape()[1];
  const std::size_t ins = w.shape()[1];
  const float* pg = g.data<float>();
  const Operand grad{pg, outs, Transpose::kNo};
  if (needs_grad(x)) {
    const GradSlot slot = grad_slot(x);
    product(grad, *as_operand(w), batch, ins, outs, slot.data, ins, slot.accumulate);
  }
  if (needs_grad(w)) {
    const GradSlot slot = grad_slot(w);
    product(grad.transposed(), *as_operand(x), outs, ins, batch, slot.data, ins, slot.accumulate);
  }
  if (needs_grad(bias)) {
    const GradSlot slot = grad_slot(bias);
    if (!slot.accumulate) std::memset(slot.data, 0, outs * sizeof(float));
    for (std::size_t i = 0; i < batch; ++i) {
      const float* row = pg + i * outs;
      for (std::size_t j = 0; j < outs; ++j) slot.data[j] += row[j];
    }
  }
}

}  // namespace

Tensor matmul(const Tensor& a_in, const Tensor& b_in) {
  expect_matrix(a_in, "matmul", "the left operand");
  expect_matrix(b_in, "matmul", "the right operand");
  if (a_in.shape()[1] != b_in.shape()[0]) {
    throw core::input_error("matmul: shapes {} and {} do not chain (inner sizes {} and {})", a_in.shape().str(),
                            b_in.shape().str(), a_in.shape()[1], b_in.shape()[0]);
  }
  const Tensor a = kernel_layout(a_in);
  const Tensor b = kernel_layout(b_in);
  const std::size_t m = a.shape()[0];
  const std::size_t k = a.shape()[1];
  const std::size_t n = b.shape()[1];
  Tensor out = Tensor::empty({m, n});
  product(*as_operand(a), *as_operand(b), m, n, k, out.data<float>(), n, false);
  record(out, "matmul", matmul_backward, a, b);
  return out;
}

Tensor linear(const Tensor& x_in, const Tensor& w_in, const Tensor& bias) {
  expect_matrix(x_in, "linear", "the input");
  expect_matrix(w_in, "linear", "the weight");
  const std::size_t batch = x_in.shape()[0];
  const std::size_t ins = w_in.shape()[1];
  const std::size_t outs = w_in.shape()[0];
  if (x_in.shape()[1] != ins) {
    throw core::input_error("linear: input of shape {} for a weight of shape {} (expected {} features)",
                            x_in.shape().str(), w_in.shape().str(), ins);
  }
  if (bias.defined()) {
    expect_f32(bias, "linear");
    if (!(bias.shape() == Shape{outs})) {
      throw core::input_error("linear: bias of shape {} for {} outputs", bias.shape().str(), outs);
    }
  }
  const Tensor x = kernel_layout(x_in);
  const Tensor w = kernel_layout(w_in);
  const Tensor b = bias.defined() ? contiguous(bias) : Tensor();
  Tensor out = Tensor::empty({batch, outs});
  float* po = out.data<float>();
  if (b.defined()) {
    for (std::size_t i = 0; i < batch; ++i) std::copy_n(b.data<float>(), outs, po + i * outs);
  }
  product(*as_operand(x), as_operand(w)->transposed(), batch, outs, ins, po, outs, b.defined());
  record(out, "linear", linear_backward, x, w, b);
  return out;
}

}  // namespace seatorch::tensor
