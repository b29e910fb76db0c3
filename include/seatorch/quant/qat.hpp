// Quantization-aware fine-tuning (QAT): train a float MLP for a few epochs with its forward
// pass fake-quantized as the int8 model will compute it, so the weights settle where
// quantization costs the least; the result is exported by the unchanged PTQ path
// (quantize_mlp), so the int8 file and everything after it are as without QAT.
//
// The fake-quantized forward wraps the MLP's own (Linear, ReLU, ..., Linear):
//   h_0 = x;   h_k = FQ_a,k( act_k( h_{k-1} FQ_w(W_k)^T + b_k ) )
// FQ_w puts the weights on the grid quantize_mlp would choose for them now (weight_params,
// recomputed every step from the current weights, per tensor or per channel as
// --granularity); FQ_a,k puts layer k's output (after its ReLU, logits included) on the
// int8 output grid of layer k, taken from quantize_mlp's calibration of the current
// weights on the calibration images: before the first epoch and again after each epoch,
// fixed within an epoch. The input needs none (pixels p / 255 are exact on the input grid),
// and the int32 bias (at scale s_x s_w, far finer than the output grid) is left in float.
// Gradients pass the fake quantizers by the clipped straight-through estimator
// (tensor/fake_quant.hpp); the grids themselves are not learned.
// Training is train_tensor's loop (Adam, cosine schedule to 0, shuffles from the seed, one
// thread), so the same model, data and options give bit-identical weights.
// Deliberately not here: learned scales (LSQ/PACT), batch-norm folding, file I/O.
#pragma once

#include "seatorch/data/dataset.hpp"
#include "seatorch/model/float_mlp.hpp"
#include "seatorch/nn/mlp.hpp"
#include "seatorch/quant/quantizer.hpp"
#include "seatorch/tensor/fake_quant.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace seatorch::quant {

struct QatOptions {
  std::size_t epochs = 0;  // 0: none (run_quantize then does plain PTQ)
  double lr = 1e-3;        // Adam's rate at the first step, annealed to 0 by a cosine
  std::size_t batch = 128;
  std::uint64_t seed = 0;  // the shuffles
};

struct QatResult {
  model::FloatMlp model;  // the fine-tuned float weights: what quantize_mlp exports
  std::size_t steps = 0;
  double final_loss = 0.0;      // the last epoch's mean training loss (fake-quantized forward)
  double float_accuracy = 0.0;  // of the fine-tuned float weights on data.test
  double seconds = 0.0;         // the whole fine-tuning, calibrations included
};

// Each layer's output grid in `quantized` (output scale and zero-point, [-128, 127]): (layers).
std::vector<tensor::AffineGrid> activation_grids(const QuantizedMlp& quantized);

// The fake-quantized forward above: x (batch, inputs) -> fake-quantized logits (batch, outputs),
// with `activations` (one grid per layer) for FQ_a.
tensor::Tensor fake_quant_forward(const nn::Mlp& model, const tensor::Tensor& x, Granularity granularity,
                                  std::span<const tensor::AffineGrid> activations);

// Fine-tunes `model` on data.train for options.epochs epochs (at least 1, else InputError). Calibration and the
// weight grids follow `quantize` (granularity, calibration method) on the n images
// `calibration_pixels` (n, inputs), as quantize_mlp does at export. Throws InputError when
// the model does not fit the data or the options cannot work.
QatResult quantization_aware_finetune(const model::FloatMlp& model, const data::DataSplit& data,
                                      std::span<const std::uint8_t> calibration_pixels, std::size_t n,
                                      const QuantizeOptions& quantize, const QatOptions& options);

}  // namespace seatorch::quant
