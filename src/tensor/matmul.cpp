// matmul and linear: forward and backward, each a call or two of kernels::matmul, or of
// kernels::sparse_matmul where linear's input is sparse data.
#include "seatorch/tensor/matmul.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/kernels/matmul.hpp"
#include "seatorch/kernels/sparse_matmul.hpp"
#include "seatorch/tensor/autograd.hpp"
#include "seatorch/tensor/elementwise.hpp"
#include "seatorch/tensor/movement.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

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

// Copies of sparse rows (one per thread) of the calling thread's for a forward to fill and
// its node to keep until the backward. One that no node holds any more is reused, so a
// training step allocates none.
std::shared_ptr<kernels::SparseCopies> sparse_rows_buffer() {
  thread_local std::vector<std::shared_ptr<kernels::SparseCopies>> buffers;
  for (const std::shared_ptr<kernels::SparseCopies>& b : buffers) {
    if (b.use_count() == 1) return b;
  }
  return buffers.emplace_back(std::make_shared<kernels::SparseCopies>());
}

// Data's nonzeros, for the sparse product: x's rows when x is data, which no gradient flows
// into, stored by rows, and sparse enough that sparse_matmul beats the dense product
// (kernels::kSparseDensity; a batch of MNIST digits is 81 % zeros); else null. A hidden
// layer's input, about half zeros after its ReLU, is never sparse enough: compressing it
// every step would be a pass for nothing, so only data is looked at.
std::shared_ptr<kernels::SparseCopies> sparse_data(const Tensor& x) {
  const std::optional<Operand> xo = as_operand(x);
  if (x.requires_grad() || !xo || xo->t == Transpose::kYes) return nullptr;
  std::shared_ptr<kernels::SparseCopies> rows = sparse_rows_buffer();
  return kernels::compress_if_sparse(xo->data, x.shape()[0], x.shape()[1], xo->ld, kernels::sparse_copies(), *rows)
             ? rows
             : nullptr;
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
// W as the kernels read it: op(B) of the forward, Wᵀ (in, out), whichever way it is stored.
Operand transposed_weight(const Tensor& w, WeightLayout layout) {
  const Operand stored = *as_operand(w);
  return layout == WeightLayout::kInOut ? stored : stored.transposed();
}

// A weight held as kInOutPanels: Wᵀ's columns in `count` panels, each (in, width) row-major.
struct Panels {
  const float* data;
  std::size_t count;
  std::size_t in;
  std::size_t width;

  [[nodiscard]] const float* panel(std::size_t p) const { return data + p * in * width; }
};

Panels panels_of(const Tensor& w) { return {w.data<float>(), w.shape()[0], w.shape()[1], w.shape()[2]}; }

// body(p) for every panel p of a dense product, the panels split across threads in
// contiguous runs as kernels::sparse_matmul_panels splits the sparse ones and the optimizer a
// panelled parameter's elements: the core that multiplies by a panel takes its gradient and
// updates it. Each part's products run on its own thread (a loop inside a part runs inline).
template <class Body>
void for_panels(std::size_t count, Body&& body) {
  core::parallel_ranges(count, 1, 1, [&](std::size_t p0, std::size_t p1) {
    for (std::size_t p = p0; p < p1; ++p) body(p);
  });
}

// linear's forward for a weight held in panels: out (batch, outs) = relu(bias + x Wᵀ), each
// panel's columns of it from that panel, over x's nonzeros where `rows` has them.
void panel_forward(Operand x, const kernels::SparseCopies* rows, const Panels& w, const kernels::Epilogue& epilogue,
                   std::size_t batch, float* out) {
  const std::size_t outs = w.count * w.width;
  if (rows != nullptr) {
    kernels::sparse_matmul_panels(
        {rows->data(), w.data, w.width, Transpose::kNo, outs, out, outs, false, false, rows->size()}, w.width,
        epilogue);
    return;
  }
  for_panels(w.count, [&](std::size_t p) {
    kernels::matmul({{batch, w.width, w.in},
                     x.data,
                     x.ld,
                     x.t,
                     w.panel(p),
                     w.width,
                     Transpose::kNo,
                     out + p * w.width,
                     outs,
                     false},
                    epilogue.from_column(p * w.width));
  });
}

// Where a weight gradient over the nonzeros of x goes: into the weight's update when its
// optimizer armed one (take_update; C's addresses are then the weight's own, none stored),
// else into the weight's gradient buffer.
struct SparseGradientTarget {
  float* c = nullptr;
  bool accumulate = false;
  const kernels::BlockUpdate* update = nullptr;

  explicit SparseGradientTarget(GradSlot slot) : c(slot.data), accumulate(slot.accumulate) {}
  SparseGradientTarget(float* weight, const kernels::BlockUpdate* to) : c(weight), update(to) {}
};

SparseGradientTarget sparse_gradient_target(const Tensor& w) {
  if (const kernels::BlockUpdate* update = take_update(w)) return {w.data<float>(), update};
  return SparseGradientTarget(grad_slot(w));
}

// linear's backward for a weight held in panels, from the gradient pg (batch, outs): the
// input's gradient as a sum over the panels in order (each panel's product accumulated onto
// the ones before), the weight's panel by panel, Xᵀ G's columns of each into that panel.
void panel_products(const Node& node, const float* pg, std::size_t batch, std::size_t outs) {
  const Tensor& x = node.inputs[0];
  const Panels w = panels_of(node.inputs[1]);
  if (needs_grad(x)) {
    const GradSlot slot = grad_slot(x);
    for (std::size_t p = 0; p < w.count; ++p) {
      product({pg + p * w.width, outs, Transpose::kNo}, Operand{w.panel(p), w.width, Transpose::kNo}.transposed(),
              batch, w.in, w.width, slot.data, w.in, slot.accumulate || p > 0);
    }
  }
  if (!needs_grad(node.inputs[1])) return;
  if (node.state) {  // the forward's nonzeros of x, by rows: Xᵀ G into the panels, or into their update
    const auto& rows = *static_cast<const kernels::SparseCopies*>(node.state.get());
    const SparseGradientTarget to = sparse_gradient_target(node.inputs[1]);
    kernels::sparse_matmul_tn_panels(
        {rows.data(), pg, outs, Transpose::kNo, outs, to.c, 0, false, to.accumulate, rows.size(), to.update}, w.width);
    return;
  }
  const GradSlot slot = grad_slot(node.inputs[1]);
  for_panels(w.count, [&](std::size_t p) {
    product(as_operand(x)->transposed(), {pg + p * w.width, outs, Transpose::kNo}, w.in, w.width, batch,
            slot.data + p * w.in * w.width, w.width, slot.accumulate);
  });
}

// The two products of linear's backward, from the gradient pg (batch, outs) of its output.
// The weight's gradient has the weight's layout: Gᵀ X (outs, ins), or Xᵀ G (ins, outs) for
// kInOut, each element the same sum over the batch in the same order.
void linear_products(const Node& node, WeightLayout layout, const float* pg, std::size_t batch, std::size_t outs) {
  if (layout == WeightLayout::kInOutPanels) return panel_products(node, pg, batch, outs);
  const Tensor& x = node.inputs[0];
  const Tensor& w = node.inputs[1];
  const Operand wt = transposed_weight(w, layout);
  const std::size_t ins = x.shape()[1];
  const bool rows_out = layout == WeightLayout::kInOut;  // the gradient stored (ins, outs)
  const Operand grad{pg, outs, Transpose::kNo};
  if (needs_grad(x)) {
    const GradSlot slot = grad_slot(x);
    product(grad, wt.transposed(), batch, ins, outs, slot.data, ins, slot.accumulate);
  }
  if (needs_grad(w)) {
    if (node.state) {  // the forward's nonzeros of x, by rows: Xᵀ G, or its transpose Gᵀ X
      const auto& rows = *static_cast<const kernels::SparseCopies*>(node.state.get());
      // Only Xᵀ G comes out a row of the weight at a time (Gᵀ X goes through transposed
      // tiles), so only it can go into the weight's update.
      const SparseGradientTarget to = rows_out ? sparse_gradient_target(w) : SparseGradientTarget(grad_slot(w));
      kernels::sparse_matmul_tn({rows.data(), pg, outs, Transpose::kNo, outs, to.c, rows_out ? outs : ins, !rows_out,
                                 to.accumulate, rows.size(), to.update});
      return;
    }
    const GradSlot slot = grad_slot(w);
    if (rows_out) {
      product(as_operand(x)->transposed(), grad, ins, outs, batch, slot.data, outs, slot.accumulate);
    } else {
      product(grad.transposed(), *as_operand(x), outs, ins, batch, slot.data, ins, slot.accumulate);
    }
  }
}

// Fewer gradient elements than this per thread are masked faster on one thread. The default
// model's 128 x 256 gradient split in two took 10.6-11.2 us a call on Zen 5's far placement
// against 3.3 us on one thread (each thread's columns of a row lie beside the other's), and
// its two-thread backward 0.110 s an epoch unsplit against 0.115 s (medians of nine pairs,
// DECISIONS 82); 2^14 had split it.
constexpr std::size_t kMaskElementsPerThread = std::size_t{1} << 16;

// Columns [j0, j1) of the bias gradient db (+)= the column sums of G (batch, outs), row by
// row in order, and, with a ReLU output y, G masked first (G where y > 0, else 0) and
// written to masked. One pass over G where the unfused ops take two or three. The buffers
// never overlap; __restrict says so, or the compiler would not vectorize the loops.
void masked_column_sums(const float* __restrict g, const float* __restrict y, float* __restrict masked,
                        float* __restrict db, bool db_accumulate, std::size_t batch, std::size_t outs, std::size_t j0,
                        std::size_t j1) {
  if (db != nullptr && !db_accumulate) std::fill(db + j0, db + j1, 0.0f);
  for (std::size_t i = 0; i < batch; ++i) {
    const float* __restrict gi = g + i * outs;
    if (y == nullptr) {
      for (std::size_t j = j0; j < j1; ++j) db[j] += gi[j];
      continue;
    }
    const float* __restrict yi = y + i * outs;
    float* __restrict mi = masked + i * outs;
    // G where y > 0, else +0: an and with the comparison's all-ones mask, which vectorizes
    // (a select here compiles to a branch that mispredicts every other element).
    for (std::size_t j = j0; j < j1; ++j) {
      const std::uint32_t keep = yi[j] > 0.0f ? 0xffffffffu : 0u;
      mi[j] = std::bit_cast<float>(std::bit_cast<std::uint32_t>(gi[j]) & keep);
    }
    if (db == nullptr) continue;
    for (std::size_t j = j0; j < j1; ++j) db[j] += mi[j];  // the row just written, still in L1
  }
}

// The gradient of linear's output: masked by the ReLU when `relu` (into a new buffer),
// summed into the bias gradient, split across threads by columns so that every column is
// summed in the same row order on any thread count. Returns the gradient for the products.
Tensor masked_gradient(const Node& node, const Tensor& out, Tensor g, bool relu) {
  const Tensor& bias = node.inputs[2];
  const std::size_t batch = out.shape()[0];
  const std::size_t outs = out.shape()[1];
  if (!relu && !needs_grad(bias)) return g;
  Tensor masked = relu ? Tensor::empty(out.shape()) : g;  // (batch, outs)
  GradSlot db{};
  if (needs_grad(bias)) db = grad_slot(bias);
  const std::size_t min_columns = std::max<std::size_t>(1, kMaskElementsPerThread / std::max<std::size_t>(1, batch));
  // Blocks of 16 columns, one cache line of floats: no two threads write the same line of a
  // row of `masked` or of db.
  core::parallel_ranges(outs, 16, min_columns, [&](std::size_t j0, std::size_t j1) {
    masked_column_sums(g.data<float>(), relu ? out.data<float>() : nullptr, masked.data<float>(), db.data,
                       db.accumulate, batch, outs, j0, j1);
  });
  return masked;
}

template <WeightLayout kLayout>
void linear_backward(const Node& node, const Tensor& out, Tensor g) {
  const Tensor gp = masked_gradient(node, out, std::move(g), false);
  linear_products(node, kLayout, gp.data<float>(), out.shape()[0], out.shape()[1]);
}

// ---- linear_relu: linear's backward from G masked where the output is 0 -----------------
template <WeightLayout kLayout>
void linear_relu_backward(const Node& node, const Tensor& out, Tensor g) {
  const Tensor gp = masked_gradient(node, out, std::move(g), true);
  linear_products(node, kLayout, gp.data<float>(), out.shape()[0], out.shape()[1]);
}

BackwardFn linear_backward_of(bool relu, WeightLayout layout) {
  if (layout == WeightLayout::kInOutPanels) {
    return relu ? linear_relu_backward<WeightLayout::kInOutPanels> : linear_backward<WeightLayout::kInOutPanels>;
  }
  if (layout == WeightLayout::kInOut) {
    return relu ? linear_relu_backward<WeightLayout::kInOut> : linear_backward<WeightLayout::kInOut>;
  }
  return relu ? linear_relu_backward<WeightLayout::kOutIn> : linear_backward<WeightLayout::kOutIn>;
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

namespace {

Tensor linear_forward(const Tensor& x_in, const Tensor& w_in, const Tensor& bias, bool relu, WeightLayout layout) {
  const char* op = relu ? "linear_relu" : "linear";
  expect_matrix(x_in, op, "the input");
  const bool panelled = layout == WeightLayout::kInOutPanels;
  if (panelled) {
    expect_f32(w_in, op);
    if (w_in.rank() != 3)
      throw core::input_error("{}: a weight held in panels must be 3-D, got shape {}", op, w_in.shape().str());
  } else {
    expect_matrix(w_in, op, "the weight");
  }
  const Shape w_shape = out_in_shape(w_in.shape(), layout);  // W's (out, in)
  const std::size_t batch = x_in.shape()[0];
  const std::size_t ins = w_shape[1];
  const std::size_t outs = w_shape[0];
  if (x_in.shape()[1] != ins) {
    const char* held = panelled                         ? " held in panels (panels, in, width)"
                       : layout == WeightLayout::kInOut ? " held as (in, out)"
                                                        : "";
    throw core::input_error("{}: input of shape {} for a weight of shape {}{} (expected {} features)", op,
                            x_in.shape().str(), w_in.shape().str(), held, ins);
  }
  if (bias.defined()) {
    expect_f32(bias, op);
    if (!(bias.shape() == Shape{outs})) {
      throw core::input_error("{}: bias of shape {} for {} outputs", op, bias.shape().str(), outs);
    }
  }
  const Tensor x = kernel_layout(x_in);
  const Tensor w = panelled ? contiguous(w_in) : kernel_layout(w_in);
  const Tensor b = bias.defined() ? contiguous(bias) : Tensor();
  Tensor out = Tensor::empty({batch, outs});
  const Operand xo = *as_operand(x);
  const kernels::Epilogue epilogue{b.defined() ? b.data<float>() : nullptr, relu};
  std::shared_ptr<kernels::SparseCopies> rows = sparse_data(x);
  if (panelled) {
    panel_forward(xo, rows.get(), panels_of(w), epilogue, batch, out.data<float>());
  } else {
    const Operand wt = transposed_weight(w, layout);
    if (rows) {
      kernels::sparse_matmul(
          {rows->data(), wt.data, wt.ld, wt.t, outs, out.data<float>(), outs, false, false, rows->size()}, epilogue);
    } else {
      kernels::matmul({{batch, outs, ins}, xo.data, xo.ld, xo.t, wt.data, wt.ld, wt.t, out.data<float>(), outs, false},
                      epilogue);
    }
  }
  Node* node = record(out, op, linear_backward_of(relu, layout), x, w, b);
  if (node != nullptr) node->state = std::move(rows);
  return out;
}

// W's elements in W's row-major order, as a view of a weight held in `layout` (no copy): the
// tensor, its transpose, or its panels permuted to (panels, width, in), which is (out, in)
// but for one reshape. Recorded when `weight` is.
Tensor out_in_view(const Tensor& weight, WeightLayout layout) {
  switch (layout) {
    case WeightLayout::kOutIn:
      return weight;
    case WeightLayout::kInOut:
      return transpose(weight, 0, 1);
    case WeightLayout::kInOutPanels:  // (panels, in, width) -> (panels, width, in)
      return permute(weight, {0, 2, 1});
  }
  throw std::logic_error("out_in_view: unknown layout");
}

}  // namespace

Shape out_in_shape(const Shape& held, WeightLayout layout) {
  switch (layout) {
    case WeightLayout::kOutIn:
      return held;
    case WeightLayout::kInOut:
      return {held[1], held[0]};
    case WeightLayout::kInOutPanels:  // (panels, in, width)
      return {held[0] * held[2], held[1]};
  }
  throw std::logic_error("out_in_shape: unknown layout");
}

Tensor weight_out_in(const Tensor& weight, WeightLayout layout) {
  const Tensor view = out_in_view(weight, layout);
  // The panels' view is 3-D, and not one stride apart from panel to panel: reshaped, a copy.
  return layout == WeightLayout::kInOutPanels ? reshape(view, out_in_shape(weight.shape(), layout)) : view;
}

void copy_out_in(const Tensor& weight, WeightLayout layout, std::span<float> out) {
  out_in_view(weight.detach(), layout).copy_values_to(out);
}

Tensor weight_held(const Tensor& w, WeightLayout layout, std::size_t width) {
  const Tensor d = w.detach();
  switch (layout) {
    case WeightLayout::kOutIn:
      return contiguous(d);
    case WeightLayout::kInOut:
      return contiguous(transpose(d, 0, 1));
    case WeightLayout::kInOutPanels: {
      const std::size_t out = d.shape()[0];
      if (width == 0 || out % width != 0) {
        throw core::input_error("a weight of {} outputs cannot be held in panels of {} columns", out, width);
      }
      return contiguous(permute(reshape(d, {out / width, width, d.shape()[1]}), {0, 2, 1}));
    }
  }
  throw std::logic_error("weight_held: unknown layout");
}

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias, WeightLayout layout) {
  return linear_forward(x, weight, bias, false, layout);
}

Tensor linear_relu(const Tensor& x, const Tensor& weight, const Tensor& bias, WeightLayout layout) {
  return linear_forward(x, weight, bias, true, layout);
}

}  // namespace seatorch::tensor
