// The float reference forward pass: each layer's product through kernels::matmul (or
// kernels::sparse_matmul for a first layer of mostly-zero data), then bias and ReLU.
#include "seatorch/model/float_mlp.hpp"

#include "seatorch/core/architecture.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/kernels/matmul.hpp"
#include "seatorch/kernels/sparse_matmul.hpp"
#include "seatorch/nn/state_dict.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace seatorch::model {
namespace {

void check_finite(std::span<const float> values, std::string_view source, std::size_t layer, std::string_view what) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      throw core::input_error("{}: tensor {} has a non-finite value ({}) at index {}; the model diverged in training, "
                              "retrain it (e.g. with a lower learning rate)",
                              source, nn::sequential_parameter_name(layer, what), values[i], i);
    }
  }
}

}  // namespace

std::string FloatMlp::architecture() const {
  std::vector<std::size_t> sizes{inputs()};
  for (const DenseLayer& layer : layers) sizes.push_back(layer.out);
  return core::architecture_name(sizes);
}

void validate_float_mlp(const FloatMlp& model, std::string_view source) {
  if (model.layers.empty()) throw core::input_error("{}: the model has no layers", source);
  for (std::size_t k = 0; k < model.layers.size(); ++k) {
    const DenseLayer& layer = model.layers[k];
    if (layer.in == 0 || layer.out == 0)
      throw core::input_error("{}: layer {} has an empty shape ({}, {})", source, k, layer.out, layer.in);
    if (layer.weight.size() != layer.in * layer.out || layer.bias.size() != layer.out) {
      throw core::input_error("{}: layer {} has {} weights and {} biases, expected {} x {} and {}", source, k,
                              layer.weight.size(), layer.bias.size(), layer.out, layer.in, layer.out);
    }
    if (k > 0 && model.layers[k - 1].out != layer.in) {
      throw core::input_error("{}: {} takes {} inputs but {} produces {}; the layers do not chain", source,
                              nn::sequential_parameter_name(k, "weight"), layer.in,
                              nn::sequential_parameter_name(k - 1, "weight"), model.layers[k - 1].out);
    }
    check_finite(layer.weight, source, k, "weight");
    check_finite(layer.bias, source, k, "bias");
  }
}

namespace {

// Rows of the data compressed at a time: every row of SparseRows has room for all its
// elements (8 bytes each), so 128 rows of 784 pixels hold 0.8 MB a copy (one copy per
// thread), whatever the size of the batch the caller hands over.
constexpr std::size_t kSparseRowsAtOnce = 128;

// y (n, layer.out) = x (n, layer.in) Wᵀ, as the dense kernel computes it.
void product(const DenseLayer& layer, const float* x, std::size_t n, float* y) {
  // W stored (out, in) is Wᵀ transposed.
  kernels::matmul({{n, layer.out, layer.in},
                   x,
                   layer.in,
                   kernels::Transpose::kNo,
                   layer.weight.data(),
                   layer.in,
                   kernels::Transpose::kYes,
                   y,
                   layer.out,
                   false});
}

// y (n, layer.out) = x (n, layer.in) Wᵀ + b, then ReLU where the layer has one. When x is
// the data (the first layer) and mostly zeros, as a batch of digits is, the product takes
// its nonzeros alone (kernels/sparse_matmul.hpp), kSparseRowsAtOnce rows at a time: the
// same bits, in less time. Its op(B) is Wᵀ: read from `panels` (FloatForward's, (panels,
// layer.in, kPanelColumns)) when given, else packed from W by the product.
void dense_forward(const DenseLayer& layer, const float* x, std::size_t n, float* y, bool data_input,
                   const float* panels) {
  constexpr std::size_t kPanel = FloatForward::kPanelColumns;
  if (!data_input) {
    product(layer, x, n, y);
  } else {
    thread_local kernels::SparseCopies rows;  // each (at most kSparseRowsAtOnce, layer.in): x's nonzeros
    for (std::size_t s0 = 0; s0 < n; s0 += kSparseRowsAtOnce) {
      const std::size_t count = std::min(kSparseRowsAtOnce, n - s0);
      const float* xs = x + s0 * layer.in;
      float* ys = y + s0 * layer.out;
      if (!kernels::compress_if_sparse(xs, count, layer.in, layer.in, kernels::sparse_copies(), rows)) {
        product(layer, xs, count, ys);
      } else if (panels == nullptr) {
        kernels::sparse_matmul({rows.data(), layer.weight.data(), layer.in, kernels::Transpose::kYes, layer.out, ys,
                                layer.out, false, false, rows.size()});
      } else {
        for (std::size_t j0 = 0; j0 < layer.out; j0 += kPanel) {
          kernels::sparse_matmul({rows.data(), panels + j0 * layer.in, kPanel, kernels::Transpose::kNo,
                                  std::min(kPanel, layer.out - j0), ys + j0, layer.out, false, false, rows.size()});
        }
      }
    }
  }
  // The bias after the product, as this reference has added it since before the products
  // took an epilogue (DECISIONS 43; training's linear starts C from the bias): calibration and
  // every float figure recorded from it keep their bits.
  for (std::size_t s = 0; s < n; ++s) {
    float* row = y + s * layer.out;
    for (std::size_t j = 0; j < layer.out; ++j) {
      row[j] += layer.bias[j];
      if (layer.relu && row[j] < 0.0f) row[j] = 0.0f;
    }
  }
}

// float_forward_into, the first layer's Wᵀ from `panels` when given (dense_forward).
std::span<const float> forward_into(const FloatMlp& model, const float* panels, std::span<const float> x, std::size_t n,
                                    ForwardBuffers& buffers) {
  assert(x.size() == n * model.inputs());
  const float* input = x.data();
  std::vector<float>* out = &buffers.a;
  for (const DenseLayer& layer : model.layers) {
    if (out->size() < n * layer.out) out->resize(n * layer.out);
    const bool first = input == x.data();
    dense_forward(layer, input, n, out->data(), first, first ? panels : nullptr);
    input = out->data();
    out = out == &buffers.a ? &buffers.b : &buffers.a;
  }
  return {input, n * model.outputs()};
}

// The floats of FloatForward's panels for the model's first layer.
std::size_t panel_floats(const FloatMlp& model) {
  if (model.layers.empty()) return 0;
  const DenseLayer& layer = model.layers.front();
  constexpr std::size_t kPanel = FloatForward::kPanelColumns;
  return (layer.out + kPanel - 1) / kPanel * layer.in * kPanel;
}

}  // namespace

std::vector<float> float_forward(const FloatMlp& model, std::span<const float> x, std::size_t n,
                                 std::vector<std::vector<float>>* layer_outputs) {
  assert(x.size() == n * model.inputs());
  if (layer_outputs) layer_outputs->clear();
  const float* input = x.data();  // (n, inputs), then each layer's (n, out)
  std::vector<float> y;           // (n, out) of the last layer run
  for (const DenseLayer& layer : model.layers) {
    std::vector<float> out(n * layer.out);  // (n, out)
    dense_forward(layer, input, n, out.data(), &layer == &model.layers.front(), nullptr);
    if (layer_outputs) layer_outputs->push_back(out);
    y = std::move(out);
    input = y.data();
  }
  if (model.layers.empty()) y.assign(x.begin(), x.end());
  return y;
}

std::span<const float> float_forward_into(const FloatMlp& model, std::span<const float> x, std::size_t n,
                                          ForwardBuffers& buffers) {
  return forward_into(model, nullptr, x, n, buffers);
}

// The panels live in a tensor::Storage: 64-byte aligned, so each 512-byte row is whole cache
// lines (a copy in a std::vector, 16-byte aligned, ran slower than packing at every call).
FloatForward::FloatForward(const FloatMlp& model) : model_(&model), panels_(panel_floats(model) * sizeof(float)) {
  float* panels = reinterpret_cast<float*>(panels_.data());
  std::fill_n(panels, panel_floats(model), 0.0f);
  if (model.layers.empty()) return;
  const DenseLayer& layer = model.layers.front();
  // W (out, in) -> Wᵀ's panels: element (j, i) to panel j / kPanelColumns, row i. A panel's
  // rows in turn, each written whole: the kPanelColumns lines of W that a row reads serve the
  // next rows from L1 (element by element down W's rows instead, each store fell on a new
  // line and the copy took as long as the evaluation saved).
  for (std::size_t j0 = 0; j0 < layer.out; j0 += kPanelColumns) {
    const std::size_t columns = std::min(kPanelColumns, layer.out - j0);
    float* panel = panels + j0 * layer.in;
    const float* w = layer.weight.data() + j0 * layer.in;
    for (std::size_t i = 0; i < layer.in; ++i) {
      for (std::size_t j = 0; j < columns; ++j) panel[i * kPanelColumns + j] = w[j * layer.in + i];
    }
  }
}

std::span<const float> FloatForward::run(std::span<const float> x, std::size_t n, ForwardBuffers& buffers) const {
  return forward_into(*model_, reinterpret_cast<const float*>(panels_.data()), x, n, buffers);
}

}  // namespace seatorch::model
