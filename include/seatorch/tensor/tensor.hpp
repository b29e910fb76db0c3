// Tensor: a shared, strided view of typed memory, and the handle autograd works on.
//
// A Tensor is a cheap handle (one shared_ptr) to a TensorImpl: dtype, shape, strides in
// elements, an offset into a shared Storage, and the autograd fields (requires_grad, the
// node of the op that made it, its gradient). Copying a Tensor copies the handle, never the
// data, as in PyTorch. Views (movement.hpp) share the storage and differ only in shape,
// strides and offset; contiguous() copies only when the layout demands it.
//
// float32 is the training dtype; int8, uint8 and int32 tensors can be made, viewed and
// copied (labels are int32, quantized weights int8), but the differentiable ops take F32.
// Deliberately not here: the ops themselves (elementwise.hpp, reduce.hpp, movement.hpp,
// matmul.hpp, loss.hpp, dropout.hpp) and the backward engine (autograd.hpp).
#pragma once

#include "seatorch/core/dtype.hpp"
#include "seatorch/tensor/shape.hpp"
#include "seatorch/tensor/storage.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <vector>

namespace seatorch::kernels {
struct BlockUpdate;
}

namespace seatorch::tensor {

struct TensorImpl;
struct Node;

class Tensor {
 public:
  Tensor() = default;  // undefined: no storage, like an empty optional
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // ---- making tensors (all contiguous, none requiring grad) -------------------------
  // Uninitialized memory: for outputs that the caller overwrites completely.
  static Tensor empty(const Shape& shape, core::DType dtype = core::DType::kF32);
  static Tensor zeros(const Shape& shape, core::DType dtype = core::DType::kF32);
  static Tensor full(const Shape& shape, float value);
  static Tensor scalar(float value);  // rank 0
  // Copies `values` (shape.numel() of them, row-major) into a new tensor of T's dtype.
  template <typename T>
  static Tensor from(std::span<const T> values, const Shape& shape);
  static Tensor from(std::initializer_list<float> values, const Shape& shape) {
    return from(std::span<const float>(values.begin(), values.size()), shape);
  }
  // A view of `base`'s storage with new geometry and no autograd link (a leaf): the raw
  // tool of the movement ops, which check bounds and record the link.
  static Tensor view_of(const Tensor& base, const Shape& shape, const Strides& strides, std::size_t offset);

  // ---- geometry ----------------------------------------------------------------------
  [[nodiscard]] bool defined() const { return impl_ != nullptr; }
  [[nodiscard]] core::DType dtype() const;
  [[nodiscard]] const Shape& shape() const;
  [[nodiscard]] const Strides& strides() const;
  [[nodiscard]] std::size_t offset() const;  // in elements, from the start of the storage
  [[nodiscard]] std::size_t rank() const { return shape().rank(); }
  [[nodiscard]] std::size_t size(int axis) const;
  [[nodiscard]] std::size_t numel() const { return shape().numel(); }
  // Row-major dense: strides equal contiguous_strides(shape), ignoring size-1 dimensions.
  [[nodiscard]] bool is_contiguous() const;
  [[nodiscard]] bool shares_storage(const Tensor& other) const;
  [[nodiscard]] const std::shared_ptr<Storage>& storage() const;

  // ---- data --------------------------------------------------------------------------
  // Pointer to element (0, ..., 0); T must match dtype() (throws std::logic_error).
  template <typename T>
  [[nodiscard]] T* data() const;
  // The value of a one-element float tensor.
  [[nodiscard]] float item() const;
  // The elements in logical row-major order, whatever the strides.
  template <typename T = float>
  [[nodiscard]] std::vector<T> values() const;
  // values() into `out` (numel() elements), for a caller that keeps its array from call to call.
  template <typename T = float>
  void copy_values_to(std::span<T> out) const;
  // One element by index (any strides); for tests and small reads, not for loops.
  [[nodiscard]] float at(std::initializer_list<std::size_t> index) const;

  // ---- autograd ----------------------------------------------------------------------
  [[nodiscard]] bool requires_grad() const;
  // Marks a leaf as a parameter whose gradient backward() should compute.
  Tensor& set_requires_grad(bool on);
  // The accumulated gradient (contiguous, this shape); undefined until a backward reaches
  // this leaf. Interior tensors do not keep gradients (as PyTorch without retain_grad).
  [[nodiscard]] const Tensor& grad() const;
  // Drops the gradient (PyTorch's set_to_none): the next backward writes a fresh one
  // instead of adding to zeros, which saves a pass over memory.
  void zero_grad() const;
  // Hands the next backward an optimizer update of this leaf (null: none; the caller keeps
  // it alive until then). A rule that makes the leaf's whole gradient in one product may then
  // apply the update as it makes the gradient, instead of storing it (tensor::linear's
  // weight gradient over the nonzeros of its input): grad() then stays undefined and
  // updated_in_backward() turns true, and another contribution to the leaf's gradient in
  // that backward throws std::logic_error. For leaves that one op reads; see train::Optimizer.
  void update_in_backward(const kernels::BlockUpdate* update) const;
  [[nodiscard]] bool updated_in_backward() const;
  // True when no op made this tensor (parameters, inputs, constants).
  [[nodiscard]] bool is_leaf() const;
  // The name of the op that made this tensor ("matmul", "relu", ...), or "" for a leaf.
  [[nodiscard]] const char* op_name() const;
  // Reverse-mode autodiff from this one-element tensor: seeds d(this)/d(this) = 1 and adds
  // d(this)/d(leaf) into every leaf that requires grad.
  void backward() const;
  // The same from any tensor, seeded with `grad_output` (this shape): a vector-Jacobian product.
  void backward(const Tensor& grad_output) const;
  // Shares the storage but not the graph: the result is a leaf that does not require grad.
  [[nodiscard]] Tensor detach() const;

  [[nodiscard]] TensorImpl* impl() const { return impl_.get(); }
  [[nodiscard]] long use_count() const { return impl_.use_count(); }

 private:
  void expect_dtype(core::DType dtype) const;  // throws std::logic_error on a mismatch

  std::shared_ptr<TensorImpl> impl_;
};

// What a Tensor handle points to. Exposed for the op implementations and the autograd
// engine; user code goes through Tensor.
struct TensorImpl {
  std::shared_ptr<Storage> storage;
  std::size_t offset = 0;  // elements from the start of storage
  Shape shape;
  Strides strides;  // elements
  core::DType dtype = core::DType::kF32;
  bool requires_grad = false;
  std::unique_ptr<Node> grad_fn;                 // the op that made this tensor; null for leaves
  Tensor grad;                                   // (shape) contiguous F32; leaves accumulate, interiors are scratch
  std::uint64_t visited = 0;                     // backward(): the pass that last reached this tensor
  const kernels::BlockUpdate* update = nullptr;  // Tensor::update_in_backward's
  bool updated = false;                          // ... applied by a backward rule

  TensorImpl() = default;
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;
  // Releases the graph above this tensor iteratively (see autograd.cpp).
  ~TensorImpl();
};

template <typename T>
T* Tensor::data() const {
  expect_dtype(core::DTypeOf<T>::value);
  return reinterpret_cast<T*>(impl_->storage->data()) + impl_->offset;
}

}  // namespace seatorch::tensor
