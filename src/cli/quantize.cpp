// `seatorch quantize --int8`: parses the flags, calls run_quantize(), prints the report.
#include "command.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/quant/quantize_run.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <memory>

namespace seatorch::cli {
namespace {

struct QuantizeFlags {
  bool int8 = false;
  std::string model = "seatorch-out/model.safetensors";
  std::string out = "seatorch-out/model.int8.safetensors";
  std::string dataset;
  std::string data_dir;
  std::string csv;
  std::string label_col;
  std::string granularity = "tensor";
  std::string calib_method = "minmax";
  std::size_t calib = 500;
  double percentile = 99.99;
  std::size_t qat_epochs = 0;
  double qat_lr = 1e-3;
  std::size_t threads = 0;  // 0: SEATORCH_THREADS, else 1
  bool json = false;
};

int run_quantize_command(const QuantizeFlags& f) {
  if (!f.int8) throw core::input_error("seatorch quantize supports INT8 only: pass --int8");
  use_threads(f.threads);
  quant::QuantizeRunOptions options;
  options.model = f.model;
  options.out = f.out;
  options.data.name = f.dataset;
  options.data.data_dir = f.data_dir;
  options.data.csv_path = f.csv;
  options.data.label_col = f.label_col;
  options.quantize.granularity = quant::parse_granularity(f.granularity);
  options.quantize.calibration = quant::parse_calibration_method(f.calib_method);
  options.quantize.percentile = f.percentile;
  options.calibration_images = f.calib;
  options.qat.epochs = f.qat_epochs;
  options.qat.lr = f.qat_lr;

  const quant::QuantizeRunSummary s = quant::run_quantize(options);
  spdlog::info("layer   in   out  relu  s_in        z_in  s_w(first)  z_w   s_out       z_out  max|err|   SQNR dB");
  for (std::size_t k = 0; k < s.layers.size(); ++k) {
    const quant::LayerReport& l = s.layers[k];
    spdlog::info("{:>5} {:>4} {:>5}  {:>4}  {:<10.4g} {:>5}  {:<10.4g} {:>4}   {:<10.4g} {:>5}  {:<9.4g}  {:>7}", k,
                 l.in, l.out, l.relu ? "yes" : "no", l.input_scale, l.input_zero_point, l.weight_scale.front(),
                 l.weight_zero_point, l.output_scale, l.output_zero_point, l.max_abs_error,
                 std::isfinite(l.sqnr_db) ? fmt::format("{:.1f}", l.sqnr_db) : std::string("exact"));
  }
  if (s.qat_epochs > 0) {
    spdlog::info("QAT: {} epochs in {:.1f} s; the fine-tuned float weights score {:.4f}", s.qat_epochs, s.qat_seconds,
                 *s.qat_float_accuracy);
  }
  spdlog::info("{} on {} ({} test images): float accuracy {:.4f}, int8 accuracy {:.4f}, delta {:+.2f} pp ({} kernel)",
               s.architecture, s.dataset, s.test_images, s.float_accuracy, s.int8_accuracy, s.delta_pp, s.kernel);
  spdlog::info("wrote {}", s.written.string());
  if (f.json) print_json(s.to_json());
  return 0;
}

}  // namespace

Command register_quantize(CLI::App& root) {
  auto f = std::make_shared<QuantizeFlags>();
  CLI::App* app = root.add_subcommand("quantize", "Post-training INT8 quantization of a float checkpoint");
  Command command{app, {}};
  app->add_flag("--int8", f->int8, "Quantize to INT8 (the one scheme supported)");
  app->add_option("--model", f->model, "Float checkpoint to quantize")->capture_default_str();
  app->add_option("--out", f->out, "INT8 model file to write")->capture_default_str();
  command
      .sets("data set", app->add_option("--dataset", f->dataset,
                                        "Data set for calibration and evaluation (default: the checkpoint's)"))
      ->check(CLI::IsMember(data::dataset_names()));
  command.sets("data directory", app->add_option("--data-dir", f->data_dir, "Directory of the data set's files"));
  command.sets("CSV file", app->add_option("--csv", f->csv, "CSV file for --dataset csv"));
  command.sets("label column", app->add_option("--label-col", f->label_col, "CSV label column"));
  app->add_option("--granularity", f->granularity,
                  "Weight scales: per tensor (asymmetric) or per output channel (symmetric)")
      ->check(CLI::IsMember({"tensor", "channel"}))
      ->capture_default_str();
  app->add_option("--calib-method", f->calib_method, "Activation range calibration")
      ->check(CLI::IsMember({"minmax", "percentile", "mse"}))
      ->capture_default_str();
  command
      .sets("calibration images",
            add_count(app, "--calib", f->calib, "Calibration images (the first N training images)", 1))
      ->capture_default_str();
  app->add_option("--percentile", f->percentile, "Upper percentile kept by --calib-method percentile")
      ->check(real_in(50.0, 100.0))
      ->capture_default_str();
  command
      .sets("QAT epochs", add_count(app, "--qat-epochs", f->qat_epochs,
                                    "Quantization-aware fine-tuning epochs before the export (0: plain post-training "
                                    "quantization)"))
      ->capture_default_str();
  command
      .sets("QAT learning rate",
            app->add_option("--qat-lr", f->qat_lr, "Adam learning rate of the fine-tuning (cosine decay to 0)"))
      ->check(kPositiveReal)
      ->capture_default_str();
  add_threads(command, app, f->threads,
              "the calibration's products, the fine-tuning's training and the evaluations' batches");
  app->add_flag("--json", f->json, "Print the results as one JSON object on stdout");
  command.run = [f] { return run_quantize_command(*f); };
  return command;
}

}  // namespace seatorch::cli
