// Elementwise ops with autograd: the four arithmetic ops with NumPy broadcasting, and the
// unary functions an MLP needs.
//
// Kernels: handle any strides. Inputs are read through their strides (stride 0 where
// broadcast, so a bias row or a scalar is never copied out to full size); outputs are new
// contiguous F32 tensors. The backward of a broadcast input sums the gradient over the
// broadcast axes (sum_to). All ops take F32 and throw InputError otherwise.
// Primitives: add, sub, mul, div, relu, sigmoid, tanh, exp, log. The scalar overloads and
// negation are composites (a rank-0 tensor broadcast over the other operand).
// Deliberately not here: in-place variants (the optimizers update parameters directly).
#pragma once

#include "seatorch/tensor/tensor.hpp"

namespace seatorch::tensor {

Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);

Tensor relu(const Tensor& x);     // max(x, 0)
Tensor sigmoid(const Tensor& x);  // 1 / (1 + exp(-x)), without overflow for large |x|
Tensor tanh(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);

inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator+(const Tensor& a, float b) { return add(a, Tensor::scalar(b)); }
inline Tensor operator-(const Tensor& a, float b) { return sub(a, Tensor::scalar(b)); }
inline Tensor operator*(const Tensor& a, float b) { return mul(a, Tensor::scalar(b)); }
inline Tensor operator/(const Tensor& a, float b) { return div(a, Tensor::scalar(b)); }
inline Tensor operator+(float a, const Tensor& b) { return add(Tensor::scalar(a), b); }
inline Tensor operator-(float a, const Tensor& b) { return sub(Tensor::scalar(a), b); }
inline Tensor operator*(float a, const Tensor& b) { return mul(Tensor::scalar(a), b); }
inline Tensor operator/(float a, const Tensor& b) { return div(Tensor::scalar(a), b); }
inline Tensor operator-(const Tensor& x) { return mul(x, Tensor::scalar(-1.0f)); }

// Throws InputError unless `t` is a defined F32 tensor; `op` names the caller.
void expect_f32(const Tensor& t, const char* op);

}  // namespace seatorch::tensor
