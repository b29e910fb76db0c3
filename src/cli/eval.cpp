// `seatorch eval`: evaluates a float checkpoint or an int8 model file; prints accuracy,
// per-class accuracy and the confusion matrix (and an int8 layer dump on request).
#include "command.hpp"

#include "seatorch/eval/eval_run.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>

namespace seatorch::cli {
namespace {

struct EvalFlags {
  std::string model = "seatorch-out/model.safetensors";
  std::string dataset;
  std::string data_dir;
  std::string csv;
  std::string label_col;
  std::string kernel = "auto";
  std::size_t dump_layers = 0;
  std::size_t threads = 0;  // 0: SEATORCH_THREADS, else 1
  bool json = false;
};

void print_report(const eval::EvalRunSummary& s) {
  const model::Evaluation& e = s.evaluation;
  const std::size_t classes = e.classes();
  fmt::print("{} model {} on {} ({} test samples): accuracy {:.4f}\n", s.kind, s.architecture, s.dataset, e.samples(),
             e.accuracy());
  fmt::print("confusion (rows: true class, columns: predicted)     recall\n");
  for (std::size_t c = 0; c < classes; ++c) {
    fmt::print("{:>3} |", c);
    for (std::size_t p = 0; p < classes; ++p) fmt::print(" {:>5}", e.confusion()[c * classes + p]);
    fmt::print(" | {:.4f}\n", e.per_class_accuracy()[c]);
  }
  if (!s.layers_dump.is_null()) fmt::print("layer dump:\n{}\n", s.layers_dump.dump(1));
}

}  // namespace

Command register_eval(CLI::App& root) {
  auto f = std::make_shared<EvalFlags>();
  CLI::App* app = root.add_subcommand("eval", "Evaluate a float checkpoint or an INT8 model on the test set");
  Command command{app, {}};
  app->add_option("--model", f->model, "Model file (float checkpoint or INT8 model)")->capture_default_str();
  command
      .sets("data set", app->add_option("--dataset", f->dataset, "Data set (default: the one recorded in the model)"))
      ->check(CLI::IsMember(data::dataset_names()));
  command.sets("data directory", app->add_option("--data-dir", f->data_dir, "Directory of the data set's files"));
  command.sets("CSV file", app->add_option("--csv", f->csv, "CSV file for --dataset csv"));
  command.sets("label column", app->add_option("--label-col", f->label_col, "CSV label column"));
  command
      .sets("int8 kernel",
            app->add_option("--kernel", f->kernel, "INT8 kernel (auto, or a name from the error message's list)"))
      ->capture_default_str();
  CLI::Option* dump = command.sets(
      "dumped image",
      add_count(app, "--dump-layers", f->dump_layers,
                "INT8 models: dump every layer's int32 accumulators and int8 outputs for this test image"));
  add_threads(command, app, f->threads, "the evaluation's batches");
  app->add_flag("--json", f->json, "Print the results as one JSON object on stdout");
  command.run = [f, dump] {
    use_threads(f->threads);
    eval::EvalRunOptions options;
    options.model = f->model;
    options.data.name = f->dataset;
    options.data.data_dir = f->data_dir;
    options.data.csv_path = f->csv;
    options.data.label_col = f->label_col;
    options.kernel = f->kernel;
    if (dump->count() > 0) options.dump_image = f->dump_layers;
    const eval::EvalRunSummary s = eval::run_eval(options);
    if (f->json) {
      print_json(s.to_json());
    } else {
      print_report(s);
    }
    return 0;
  };
  return command;
}

}  // namespace seatorch::cli
