// Named parameters and named float buffers: how models and optimizers expose their state
// to checkpoints, in PyTorch's state-dict vocabulary.
//
// A Parameter is a live tensor with its state-dict name ("0.weight"); a NamedBuffer is a
// detached copy (name, shape, values) that a checkpoint writer can store and a reader can
// hand back. Deliberately not here: any file format (the checkpoint code owns that).
#pragma once

#include "seatorch/tensor/matmul.hpp"
#include "seatorch/tensor/tensor.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::nn {

struct Parameter {
  std::string name;       // "0.weight", "0.bias", "2.weight", ...
  tensor::Tensor tensor;  // a contiguous F32 leaf that requires grad
  // How the tensor holds the parameter (tensor::WeightLayout): as it is (kOutIn, a bias too),
  // as its transpose or in panels of it (nn::Linear keeps W as Wᵀ). The parameter, and any
  // buffer laid out like it (an optimizer's), is tensor::weight_out_in of the tensor.
  tensor::WeightLayout layout = tensor::WeightLayout::kOutIn;
};

struct NamedBuffer {
  std::string name;
  std::vector<std::size_t> shape;
  std::vector<float> data;  // (shape) row-major
};

using StateDict = std::vector<NamedBuffer>;

// The state-dict name of dense layer k's parameter in an MLP laid out as PyTorch's
// nn.Sequential(Linear, ReLU, Linear, ...): "0.weight", "0.bias", "2.weight", ... (the ReLUs
// at odd positions have no parameters). Checkpoints (model/float_checkpoint.hpp) use it too.
std::string sequential_parameter_name(std::size_t layer, std::string_view parameter);

// A copy of a tensor's values under a name, as the parameter that a tensor held in `layout`
// stands for (the 2-D tensor's transpose for kInOut, its panels in rows for kInOutPanels).
NamedBuffer to_buffer(std::string name, const tensor::Tensor& t,
                      tensor::WeightLayout layout = tensor::WeightLayout::kOutIn);

// The buffer called `name`, or nullptr.
const NamedBuffer* find_buffer(const StateDict& state, std::string_view name);

// Copies `buffer` into the contiguous F32 tensor `dst`, which holds it in `layout` (as
// to_buffer reads it back), after checking that the shapes agree; `owner` names what is
// being loaded in the InputError otherwise.
void copy_into(const NamedBuffer& buffer, const tensor::Tensor& dst, std::string_view owner,
               tensor::WeightLayout layout = tensor::WeightLayout::kOutIn);

// Throws InputError when `state` holds a name that is not in `expected` (a stale or
// foreign checkpoint), listing the expected names.
void reject_unexpected(const StateDict& state, const std::vector<std::string>& expected, std::string_view owner);

}  // namespace seatorch::nn
