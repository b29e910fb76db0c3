// The float MLP that the quantizer consumes: dense layers with an optional ReLU, stored as
// plain arrays, independent of the tensor engine (which converts its Linear layers to this
// and back through the checkpoint, quant/float_checkpoint.hpp).
//
// The forward pass is the float reference that calibration and the float-vs-int8
// comparison use; its products go through kernels::matmul (kernels/matmul.hpp), the first
// layer's through kernels::sparse_matmul when its input is mostly zeros. FloatForward is the
// same forward with the first layer's weights laid out once, for many batches.
// Deliberately not here: training, other activations (the integer model has ReLU or
// nothing), and any notion of tensors or autograd.
#pragma once

#include "seatorch/tensor/storage.hpp"


#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::model {

struct DenseLayer {
  std::size_t in = 0;
  std::size_t out = 0;
  std::vector<float> weight;  // (out, in) row-major, as PyTorch's nn.Linear
  std::vector<float> bias;    // (out)
  bool relu = false;          // y = max(0, W x + b) when set
};

struct FloatMlp {
  std::vector<DenseLayer> layers;

  [[nodiscard]] std::size_t inputs() const { return layers.empty() ? 0 : layers.front().in; }
  [[nodiscard]] std::size_t outputs() const { return layers.empty() ? 0 : layers.back().out; }
  // "784-256-128-10"
  [[nodiscard]] std::string architecture() const;
};

// Throws InputError (naming `source`) when the model is empty, a layer's arrays do not have
// its (out, in) sizes, consecutive layers do not chain, or a value is NaN or infinite.
void validate_float_mlp(const FloatMlp& model, std::string_view source);

// x (n, inputs) -> (n, outputs). When `layer_outputs` is given, it receives every layer's
// output (n, layers[k].out), after the ReLU where there is one.
std::vector<float> float_forward(const FloatMlp& model, std::span<const float> x, std::size_t n,
                                 std::vector<std::vector<float>>* layer_outputs = nullptr);

// The activations float_forward_into reuses from call to call: once they have grown to a
// batch size, a forward of that many samples allocates nothing. (The evaluator used to take
// fresh pages for every batch, and faulting them in was about 40 % of its time.)
struct ForwardBuffers {
  std::vector<float> a;  // the layers write a and b in turn, each (n, the layer's outputs)
  std::vector<float> b;
};

// float_forward without the copies: x (n, inputs) -> (n, outputs), a view into `buffers`
// that stays valid until their next use.
std::span<const float> float_forward_into(const FloatMlp& model, std::span<const float> x, std::size_t n,
                                          ForwardBuffers& buffers);

// A FloatMlp made ready for many forwards over the same weights (an evaluation's batches, a
// benchmark's passes), as the int8 engine makes its model ready once: the first layer's Wᵀ
// copied once into panels of kPanelColumns columns, 64-byte aligned, from which the sparse
// product of a batch of data reads op(B) in place. float_forward and float_forward_into
// pack op(B) from W (out, in) at every product instead, kSparseRowsAtOnce rows at a time;
// `bench int8`'s float path spent a sixth of its time on that (DECISIONS 86). The same
// bits either way: every element is the same sum in the same order.
// Reads `model` in place: it must outlive this and keep its weights.
class FloatForward {
 public:
  explicit FloatForward(const FloatMlp& model);

  // float_forward_into(model, x, n, buffers), with the first layer's Wᵀ as prepared.
  std::span<const float> run(std::span<const float> x, std::size_t n, ForwardBuffers& buffers) const;

  // A panel's width: the AVX-512 sparse product's column block (sparse_matmul.hpp), and a
  // multiple of every other kernel's, so that each reads its panel's rows (512 bytes apart)
  // in place.
  static constexpr std::size_t kPanelColumns = 128;

 private:
  const FloatMlp* model_;
  // (panels, layers[0].in, kPanelColumns) floats, 64-byte aligned: panel q holds columns
  // [q * kPanelColumns, ...) of the first layer's Wᵀ, those past its outputs zero
  tensor::Storage panels_;
};


}  // namespace seatorch::model
