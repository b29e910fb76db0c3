// Tensor handles: construction, geometry queries and element access. The autograd entry
// points (backward, the iterative graph release) live in autograd.cpp.
#include "seatorch/tensor/tensor.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/tensor/autograd.hpp"
#include "strided.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace seatorch::tensor {
namespace {

Tensor make(const Shape& shape, core::DType dtype) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::make_shared<Storage>(shape.numel() * core::dtype_size(dtype));
  impl->shape = shape;
  impl->strides = contiguous_strides(shape);
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

}  // namespace

Tensor Tensor::empty(const Shape& shape, core::DType dtype) { return make(shape, dtype); }

Tensor Tensor::zeros(const Shape& shape, core::DType dtype) {
  Tensor t = make(shape, dtype);
  std::memset(t.storage()->data(), 0, t.storage()->bytes());  // all-zero bits are 0 in every dtype
  return t;
}

Tensor Tensor::full(const Shape& shape, float value) {
  Tensor t = make(shape, core::DType::kF32);
  std::fill_n(t.data<float>(), t.numel(), value);
  return t;
}

Tensor Tensor::scalar(float value) { return full(Shape{}, value); }

template <typename T>
Tensor Tensor::from(std::span<const T> values, const Shape& shape) {
  if (values.size() != shape.numel()) {
    throw core::input_error("{} values do not fill a tensor of shape {} ({} elements)", values.size(), shape.str(),
                            shape.numel());
  }
  Tensor t = make(shape, core::DTypeOf<T>::value);
  std::copy(values.begin(), values.end(), t.data<T>());
  return t;
}

template Tensor Tensor::from<float>(std::span<const float>, const Shape&);
template Tensor Tensor::from<std::int8_t>(std::span<const std::int8_t>, const Shape&);
template Tensor Tensor::from<std::uint8_t>(std::span<const std::uint8_t>, const Shape&);
template Tensor Tensor::from<std::int32_t>(std::span<const std::int32_t>, const Shape&);

Tensor Tensor::view_of(const Tensor& base, const Shape& shape, const Strides& strides, std::size_t offset) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = base.storage();
  impl->offset = offset;
  impl->shape = shape;
  impl->strides = strides;
  impl->dtype = base.dtype();
  return Tensor(std::move(impl));
}

core::DType Tensor::dtype() const { return impl_->dtype; }
const Shape& Tensor::shape() const { return impl_->shape; }
const Strides& Tensor::strides() const { return impl_->strides; }
std::size_t Tensor::offset() const { return impl_->offset; }
const std::shared_ptr<Storage>& Tensor::storage() const { return impl_->storage; }

std::size_t Tensor::size(int axis) const { return shape()[normalize_axis(axis, rank())]; }

bool Tensor::is_contiguous() const {
  std::size_t expected = 1;
  for (std::size_t d = rank(); d-- > 0;) {
    if (shape()[d] == 1) continue;  // its stride is never used to step
    if (strides()[d] != expected) return false;
    expected *= shape()[d];
  }
  return true;
}

bool Tensor::shares_storage(const Tensor& other) const {
  return defined() && other.defined() && storage() == other.storage();
}

void Tensor::expect_dtype(core::DType dtype) const {
  if (impl_->dtype != dtype) {
    throw std::logic_error(
        fmt::format("tensor of dtype {} accessed as {}", core::dtype_name(impl_->dtype), core::dtype_name(dtype)));
  }
}

float Tensor::item() const {
  if (numel() != 1) throw core::input_error("item() needs a one-element tensor, not shape {}", shape().str());
  return *data<float>();
}

template <typename T>
std::vector<T> Tensor::values() const {
  std::vector<T> out(numel());
  copy_values_to(std::span<T>(out));
  return out;
}

template <typename T>
void Tensor::copy_values_to(std::span<T> out) const {
  expect_dtype(core::DTypeOf<T>::value);
  if (out.size() != numel()) {
    throw std::logic_error(fmt::format("copy_values_to: {} elements into an array of {}", numel(), out.size()));
  }
  detail::copy_to_dense(*this, reinterpret_cast<std::byte*>(out.data()));
}

template std::vector<float> Tensor::values<float>() const;
template std::vector<std::int8_t> Tensor::values<std::int8_t>() const;
template std::vector<std::uint8_t> Tensor::values<std::uint8_t>() const;
template std::vector<std::int32_t> Tensor::values<std::int32_t>() const;
template void Tensor::copy_values_to<float>(std::span<float>) const;

float Tensor::at(std::initializer_list<std::size_t> index) const {
  if (index.size() != rank()) {
    throw core::input_error("index of {} values for a tensor of rank {}", index.size(), rank());
  }
  std::size_t offset = 0;
  std::size_t d = 0;
  for (std::size_t i : index) {
    if (i >= shape()[d]) throw core::input_error("index {} out of range for dimension {} of {}", i, d, shape().str());
    offset += i * strides()[d++];
  }
  return data<float>()[offset];
}

bool Tensor::requires_grad() const { return impl_->requires_grad; }

Tensor& Tensor::set_requires_grad(bool on) {
  if (!is_leaf())
    throw core::input_error("requires_grad can only be set on leaf tensors, not on the output of '{}'", op_name());
  if (on && dtype() != core::DType::kF32)
    throw core::input_error("only F32 tensors can require grad, not {}", core::dtype_name(dtype()));
  impl_->requires_grad = on;
  return *this;
}

const Tensor& Tensor::grad() const { return impl_->grad; }

void Tensor::zero_grad() const { impl_->grad = Tensor(); }

void Tensor::update_in_backward(const kernels::BlockUpdate* update) const {
  impl_->update = update;
  impl_->updated = false;
}

bool Tensor::updated_in_backward() const { return impl_->updated; }

bool Tensor::is_leaf() const { return impl_->grad_fn == nullptr; }

const char* Tensor::op_name() const { return is_leaf() ? "" : impl_->grad_fn->name; }

Tensor Tensor::detach() const { return view_of(*this, shape(), strides(), offset()); }

}  // namespace seatorch::tensor
