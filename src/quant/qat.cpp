// Quantization-aware fine-tuning: the fake-quantized forward, and train_tensor driven with it.
#include "seatorch/quant/qat.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/model/engine_weights.hpp"
#include "seatorch/tensor/matmul.hpp"
#include "seatorch/tensor/movement.hpp"
#include "seatorch/train/tensor_trainer.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>

namespace seatorch::quant {
namespace {

tensor::AffineGrid grid_of(const QuantParams& p) {
  // quantize_mlp lifts an all-zero matrix's (or row's) scale 0; its values are exact on any grid.
  return {p.scale > 0.0 ? p.scale : 1.0, p.zero_point, p.qmin, p.qmax};
}

// The weight W (out, in), from the layer's Wᵀ, as quantize_mlp would quantize it now,
// dequantized; the STE passes its gradient, and the recorded transpose (or the panels' copy)
// takes it to Wᵀ. The copy into W's rows costs a pass a step, which fine-tuning can afford,
// for per-row grids that are then the quantizer's own.
tensor::Tensor fake_quant_weight(const nn::Linear& layer, Granularity granularity) {
  const tensor::Tensor weight = tensor::contiguous(tensor::weight_out_in(layer.weight_t, layer.layout));
  const std::vector<QuantParams> params =
      weight_params(std::span<const float>(weight.data<float>(), weight.numel()), weight.size(0), granularity);
  if (granularity == Granularity::kTensor) return tensor::fake_quantize(weight, grid_of(params.front()));
  std::vector<tensor::AffineGrid> rows;  // (out)
  for (const QuantParams& p : params) rows.push_back(grid_of(p));
  return tensor::fake_quantize_rows(weight, rows);
}

// quantize_mlp's output grids for `model`'s current weights on the calibration images.
std::vector<tensor::AffineGrid> calibrated_grids(const model::FloatMlp& model, std::span<const std::uint8_t> pixels,
                                                 std::size_t n, const QuantizeOptions& quantize) {
  return activation_grids(quantize_mlp(model, pixels, n, quantize));
}

}  // namespace

std::vector<tensor::AffineGrid> activation_grids(const QuantizedMlp& quantized) {
  std::vector<tensor::AffineGrid> grids;
  for (const Int8Layer& layer : quantized.model.layers)
    grids.push_back({layer.output_scale, layer.output_zero_point, -128, 127});
  return grids;
}

tensor::Tensor fake_quant_forward(const nn::Mlp& model, const tensor::Tensor& x, Granularity granularity,
                                  std::span<const tensor::AffineGrid> activations) {
  const std::vector<nn::Linear>& layers = model.layers();
  if (activations.size() != layers.size()) {
    throw core::input_error("fake_quant_forward: {} activation grids for a {}-layer model", activations.size(),
                            layers.size());
  }
  tensor::Tensor h = x;
  for (std::size_t k = 0; k < layers.size(); ++k) {
    const tensor::Tensor w = fake_quant_weight(layers[k], granularity);
    h = k + 1 < layers.size() ? tensor::linear_relu(h, w, layers[k].bias) : tensor::linear(h, w, layers[k].bias);
    h = tensor::fake_quantize(h, activations[k]);
  }
  return h;
}

QatResult quantization_aware_finetune(const model::FloatMlp& model, const data::DataSplit& data,
                                      std::span<const std::uint8_t> calibration_pixels, std::size_t n,
                                      const QuantizeOptions& quantize, const QatOptions& options) {
  if (options.epochs == 0)
    throw core::option_error("QAT epochs", "quantization-aware training needs at least one epoch");
  if (!(options.lr > 0.0 && std::isfinite(options.lr))) {
    throw core::option_error("QAT learning rate",
                             "the learning rate of quantization-aware training must be positive, got {}", options.lr);
  }
  const auto start = std::chrono::steady_clock::now();

  train::TensorTrainConfig config;
  const std::vector<std::size_t> sizes = model::layer_sizes(model);
  config.hidden.assign(sizes.begin() + 1, sizes.end() - 1);
  config.epochs = options.epochs;
  config.batch = options.batch;
  config.optimizer = train::OptimizerKind::kAdam;
  config.lr = options.lr;
  config.schedule = {train::ScheduleKind::kCosine};
  config.seed = options.seed;
  config.evaluate_each_epoch = false;
  config.initial_parameters = model::state_dict_of(model);
  std::vector<tensor::AffineGrid> grids = calibrated_grids(model, calibration_pixels, n, quantize);  // (layers)
  config.train_forward = [&](nn::Mlp& m, const tensor::Tensor& x) {
    return fake_quant_forward(m, x, quantize.granularity, grids);
  };
  train::TensorTrainCallbacks callbacks;
  callbacks.on_checkpoint = [&](const train::TrainEpoch& report, const train::TensorTrainState& state) {
    spdlog::info("QAT epoch {}/{}: loss {:.4f}, train accuracy {:.4f} (fake-quantized), {:.1f} s", report.epoch,
                 options.epochs, report.loss, report.train_accuracy, report.seconds);
    if (report.epoch < options.epochs)
      grids = calibrated_grids(model::float_mlp_of(state.model), calibration_pixels, n, quantize);
  };
  train::TensorTrainOutput trained = train::train_tensor(data, config, callbacks);

  QatResult result;
  result.model = model::float_mlp_of(trained.model);
  result.steps = trained.result.steps;
  result.final_loss = trained.result.final_loss;
  result.float_accuracy = trained.result.test.accuracy();
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace seatorch::quant
