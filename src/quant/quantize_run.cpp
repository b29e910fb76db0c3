// run_quantize(): checkpoint -> calibration -> int8 model -> comparison -> file.
#include "seatorch/quant/quantize_run.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/io/atomic_file.hpp"
#include "seatorch/io/safetensors.hpp"
#include "seatorch/model/float_checkpoint.hpp"
#include "seatorch/model/model_file.hpp"
#include "seatorch/quant/evaluate.hpp"
#include "seatorch/quant/int8_engine.hpp"
#include "seatorch/quant/int8_file.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace seatorch::quant {

nlohmann::json QuantizeRunSummary::to_json() const {
  return {{"dataset", dataset},
          {"architecture", architecture},
          {"granularity", granularity_name(quantize.granularity)},
          {"calib_method", calibration_method_name(quantize.calibration)},
          {"calib_images", calibration_images},
          {"test_images", test_images},
          {"float_accuracy", float_accuracy},
          {"int8_accuracy", int8_accuracy},
          {"delta_pp", delta_pp},
          {"int8_kernel", kernel},
          {"qat_epochs", qat_epochs},
          {"qat_lr", qat_epochs > 0 ? nlohmann::json(qat_lr) : nlohmann::json(nullptr)},
          {"qat_seconds", qat_seconds},
          {"qat_float_accuracy", qat_float_accuracy ? nlohmann::json(*qat_float_accuracy) : nlohmann::json(nullptr)},
          {"layers", layer_reports_json(layers)},
          {"model", written.string()}};
}

QuantizeRunSummary run_quantize(const QuantizeRunOptions& options) {
  io::check_output_path(options.out);
  io::check_not_input(options.out, options.model, "the float checkpoint being quantized");
  const io::SafetensorsFile file = io::load_safetensors(options.model);
  const model::FloatMlp model = model::float_mlp_from_checkpoint(file, options.model.string());
  data::DataOptions data_options = options.data;
  data_options.name = model::dataset_for(file.metadata, options.model.string(), data_options.name);
  if (options.calibration_images == 0) {
    throw core::option_error("calibration images", "calibration needs at least 1 image, got 0");
  }
  const data::DataSplit data = data::load_dataset(data_options);

  const std::size_t n_calib = std::min(options.calibration_images, data.train.size());
  const auto calibration_pixels = data::image_pixels(data.train, "the int8 model").first(n_calib * data.train.features);

  QuantizeRunSummary summary;
  model::FloatMlp exported = model;  // the float weights that are quantized: fine-tuned ones after QAT
  if (options.qat.epochs > 0) {
    spdlog::info("quantization-aware fine-tuning of {} on {}: {} epochs, Adam lr {} with cosine decay, per-{} weights",
                 model.architecture(), data.name, options.qat.epochs, options.qat.lr,
                 granularity_name(options.quantize.granularity));
    QatResult qat =
        quantization_aware_finetune(model, data, calibration_pixels, n_calib, options.quantize, options.qat);
    exported = std::move(qat.model);
    summary.qat_epochs = options.qat.epochs;
    summary.qat_lr = options.qat.lr;
    summary.qat_seconds = qat.seconds;
    summary.qat_float_accuracy = qat.float_accuracy;
  }
  spdlog::info("calibrating {} on {} training images of {} ({}, {})", model.architecture(), n_calib, data.name,
               granularity_name(options.quantize.granularity), calibration_method_name(options.quantize.calibration));
  QuantizedMlp quantized = quantize_mlp(exported, calibration_pixels, n_calib, options.quantize);

  measure_errors(exported, quantized, data::image_pixels(data.test, "the int8 model"), data.test.size());
  const model::Evaluation float_eval = model::evaluate_float(model, data.test);
  const Int8Engine engine(quantized.model);
  const model::Evaluation int8_eval = evaluate_int8(engine, data.test);

  summary.dataset = data.name;
  summary.architecture = model.architecture();
  summary.quantize = options.quantize;
  summary.calibration_images = n_calib;
  summary.test_images = data.test.size();
  summary.float_accuracy = float_eval.accuracy();
  summary.int8_accuracy = int8_eval.accuracy();
  summary.delta_pp = (summary.int8_accuracy - summary.float_accuracy) * 100.0;
  summary.kernel = std::string(engine.kernel());
  summary.layers = quantized.layers;

  std::map<std::string, std::string> metadata = quantized.metadata;
  metadata["dataset"] = data.name;
  metadata["source_model"] = options.model.filename().string();
  metadata["float_accuracy"] = fmt::format("{:.4f}", summary.float_accuracy);
  metadata["int8_accuracy"] = fmt::format("{:.4f}", summary.int8_accuracy);
  if (summary.qat_epochs > 0) {
    metadata["qat_epochs"] = std::to_string(summary.qat_epochs);
    metadata["qat_lr"] = fmt::format("{}", summary.qat_lr);
  }
  save_int8_model(options.out, quantized.model, metadata);
  summary.written = options.out;
  return summary;
}

}  // namespace seatorch::quant
