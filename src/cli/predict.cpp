// `seatorch predict`: classifies the user's own pictures of digits with a float or int8
// model, and optionally on the Mini NPU; prints each class with its scores.
#include "command.hpp"

#include "seatorch/predict/predict_run.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>

namespace seatorch::cli {
namespace {

struct PredictFlags {
  predict::PredictOptions options;
  std::vector<std::string> images;
  std::string model = "seatorch-out/model.safetensors";
  std::string hex = "seatorch-out/model.hex";
  std::string save_input;
  bool json = false;
};

// "0: -12  1: 40  ..." for logits, "0: 0.001  1: 0.990  ..." for probabilities.
template <typename T>
std::string scores(const std::vector<T>& values, const char* format) {
  std::string out;
  for (std::size_t c = 0; c < values.size(); ++c) {
    out += fmt::format("{}{}: ", c == 0 ? "" : "  ", c) + fmt::format(fmt::runtime(format), values[c]);
  }
  return out;
}

void print_report(const predict::PredictSummary& s) {
  std::cout << fmt::format("{} model {} ({})\n", s.kind, s.architecture, s.model);
  for (const predict::ImagePrediction& p : s.images) {
    const image::DigitInput& in = p.input;
    std::cout << fmt::format("{}: {}\n", p.image.string(), p.predicted);
    std::cout << fmt::format(
        "  picture        {} x {}, {} background{}, ink {} x {} at ({}, {}) -> {} x {} in {} x {}\n", p.width, p.height,
        in.inverted ? "light" : "dark", in.inverted ? " (inverted)" : "", in.ink_width, in.ink_height, in.ink_x,
        in.ink_y, in.scaled_width, in.scaled_height, in.side, in.side);
    if (!p.probabilities.empty()) std::cout << "  probabilities  " << scores(p.probabilities, "{:.3f}") << '\n';
    if (!p.int8_logits.empty()) std::cout << "  int8 logits    " << scores(p.int8_logits, "{}") << '\n';
    if (p.npu) {
      std::cout << fmt::format("  Mini NPU       {}, logits {} the C++ integer reference's ({} cycles)\n",
                               p.npu->predicted, p.npu->matches_reference() ? "equal to" : "DIFFERENT FROM",
                               p.npu->npu_cycles);
      std::cout << "    NPU logits   " << scores(p.npu->logits, "{}") << '\n';
    }
  }
  std::cout << std::flush;
}

int run_predict_command(PredictFlags& f) {
  f.options.images.assign(f.images.begin(), f.images.end());
  f.options.model = f.model;
  f.options.hex = f.hex;
  f.options.save_input = f.save_input;
  const predict::PredictSummary s = predict::run_predict(f.options);
  if (!s.npu_agrees()) spdlog::error("the NPU disagrees with the C++ integer reference: a bug in seatorch");
  if (f.json) {
    print_json(s.to_json());
  } else {
    print_report(s);
  }
  // A disagreement is a bug in seatorch (exporter, RTL or reference), not bad input.
  return s.npu_agrees() ? 0 : 2;
}

}  // namespace

Command register_predict(CLI::App& root) {
  auto f = std::make_shared<PredictFlags>();
  CLI::App* app = root.add_subcommand("predict", "Classify your own pictures of digits (PNG, BMP, PGM/PPM)");
  Command command{app, {}};
  command.sets("pictures", app->add_option("--image", f->images, "Picture to classify (repeat for several)"))
      ->required();
  app->add_option("--model", f->model, "Float checkpoint or INT8 model")->capture_default_str();
  CLI::Option* npu = app->add_flag("--npu", f->options.npu, "Also run the Mini NPU (Verilated) on the prepared input");
  app->add_option("--hex", f->hex, "NPU image for --npu, written by `seatorch export --hex`")
      ->needs(npu)
      ->capture_default_str();
  command.sets("saved input", app->add_option("--save-input", f->save_input,
                                              "Write the prepared model input (28 x 28) as a PGM picture"));
  app->add_flag("--json", f->json, "Print the results as one JSON object on stdout");
  command.run = [f] { return run_predict_command(*f); };
  return command;
}

}  // namespace seatorch::cli
