// run_predict(): pictures -> MNIST-style inputs -> float or int8 model (-> Mini NPU).
#include "seatorch/predict/predict_run.hpp"

#include "seatorch/core/argmax.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/image/image_file.hpp"
#include "seatorch/image/pnm.hpp"
#include "seatorch/io/atomic_file.hpp"
#include "seatorch/io/safetensors.hpp"
#include "seatorch/kernels/pixel_values.hpp"
#include "seatorch/model/float_checkpoint.hpp"
#include "seatorch/model/model_file.hpp"
#include "seatorch/npu/hex.hpp"
#include "seatorch/npu/image_decode.hpp"
#include "seatorch/npu/session.hpp"
#include "seatorch/quant/int8_file.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

namespace seatorch::predict {
namespace {

// The model file, either kind, with what run_predict needs of it.
struct LoadedModel {
  std::string kind;
  std::optional<model::FloatMlp> float_model;
  std::optional<quant::Int8Model> int8_model;
  std::string dataset;

  [[nodiscard]] std::size_t inputs() const { return float_model ? float_model->inputs() : int8_model->inputs(); }
  [[nodiscard]] std::string architecture() const {
    return float_model ? float_model->architecture() : int8_model->architecture();
  }
};

LoadedModel load_model(const std::filesystem::path& path) {
  const io::SafetensorsFile file = io::load_safetensors(path);
  LoadedModel model;
  if (model::model_file_kind(file) == model::ModelFileKind::kInt8Model) {
    model.kind = "int8";
    model.int8_model = quant::int8_model_from_file(file, path.string()).model;
  } else {
    model.kind = "float";
    model.float_model = model::float_mlp_from_checkpoint(file, path.string());
  }
  model.dataset = model::recorded_dataset(file.metadata).value_or("");
  return model;
}

void classify(const LoadedModel& model, ImagePrediction& p) {
  const std::vector<std::uint8_t>& pixels = p.input.pixels;  // (side, side)
  if (model.float_model) {
    // Bytes / 255, as the data loaders give MNIST to the float model.
    std::vector<float> x(pixels.size());
    kernels::pixel_values(pixels, x);
    const std::vector<float> logits = model::float_forward(*model.float_model, x, 1);
    p.predicted = core::argmax(logits);
    p.probabilities = softmax(logits);
  } else {
    p.int8_logits = quant::int8_forward_ref(*model.int8_model, pixels);
    p.predicted = core::argmax(p.int8_logits);
  }
}

// Why the integer model an NPU image encodes is not the int8 model given beside it, in words,
// or nothing: the fields its arithmetic reads (the image carries no float scales).
std::optional<std::string> int8_difference(const quant::Int8Model& image, const quant::Int8Model& given) {
  for (std::size_t k = 0; k < image.layers.size(); ++k) {
    const quant::Int8Layer& a = image.layers[k];
    const quant::Int8Layer& b = given.layers[k];
    const auto differ = [&](std::string_view what) { return fmt::format("layer {}'s {} differ", k, what); };
    if (a.weight != b.weight) return differ("weights");
    if (a.bias != b.bias) return differ("biases");
    if (a.multiplier != b.multiplier || a.shift != b.shift) return differ("requantization multipliers or shifts");
    if (a.input_zero_point != b.input_zero_point || a.weight_zero_point != b.weight_zero_point ||
        a.output_zero_point != b.output_zero_point || a.relu != b.relu) {
      return differ("zero-points or ReLU");
    }
  }
  return std::nullopt;
}

// Every prepared input through the Verilated Mini NPU of the image's target, loaded once with
// the .hex image, which must hold the model the pictures went through: the same architecture,
// and for an int8 model the same integers (else the NPU would answer for another model).
void run_on_npu(const std::filesystem::path& hex, const LoadedModel& model, const std::filesystem::path& model_path,
                std::vector<ImagePrediction>& predictions) {
  const npu::NpuImage image = npu::read_npu_hex(hex);
  // The reference is the integer model the image itself encodes, as in `seatorch sim`.
  const quant::Int8Model reference = npu::decode_npu_image(image);
  if (reference.architecture() != model.architecture()) {
    throw core::input_error("{} holds a {} model but {} is {}: export the .hex from this model", hex.string(),
                            reference.architecture(), model_path.string(), model.architecture());
  }
  if (model.int8_model) {
    if (const auto difference = int8_difference(reference, *model.int8_model)) {
      throw core::input_error("{} was not exported from {} ({}): export it with `seatorch export --hex --model {}`",
                              hex.string(), model_path.string(), *difference, model_path.string());
    }
  }
  npu::NpuSimOptions options;
  options.target = image.target;  // the one the image was exported for
  npu::NpuSession session(options);
  spdlog::info("loading {} ({} words) into the Mini NPU ({} target) over its UART", image.architecture(),
               image.total_words(), image.target.name);
  session.load(image);
  for (ImagePrediction& p : predictions) {
    const npu::NpuInference answer = session.infer(p.input.pixels);
    p.npu = NpuPrediction{answer.predicted, answer.logits, quant::int8_forward_ref(reference, p.input.pixels),
                          answer.npu_cycles};
  }
}

template <typename T>
nlohmann::json integers(const std::vector<T>& values) {
  nlohmann::json out = nlohmann::json::array();
  for (const T v : values) out.push_back(static_cast<int>(v));
  return out;
}

}  // namespace

std::vector<double> softmax(const std::vector<float>& logits) {
  std::vector<double> p(logits.size());
  if (logits.empty()) return p;
  const double top = *std::max_element(logits.begin(), logits.end());
  double sum = 0.0;
  for (std::size_t i = 0; i < logits.size(); ++i) sum += p[i] = std::exp(static_cast<double>(logits[i]) - top);
  for (double& v : p) v /= sum;
  return p;
}

bool PredictSummary::npu_agrees() const {
  return std::all_of(images.begin(), images.end(),
                     [](const ImagePrediction& p) { return !p.npu || p.npu->matches_reference(); });
}

nlohmann::json PredictSummary::to_json() const {
  nlohmann::json list = nlohmann::json::array();
  for (const ImagePrediction& p : images) {
    const image::DigitInput& in = p.input;
    nlohmann::json j{{"image", p.image.string()},
                     {"width", p.width},
                     {"height", p.height},
                     {"inverted", in.inverted},
                     {"background", in.background},
                     {"ink_box", {in.ink_x, in.ink_y, in.ink_width, in.ink_height}},
                     {"scaled", {in.scaled_width, in.scaled_height}},
                     {"predicted", p.predicted}};
    if (!p.probabilities.empty()) j["probabilities"] = p.probabilities;
    if (!p.int8_logits.empty()) j["logits"] = integers(p.int8_logits);
    if (p.npu) {
      j["npu"] = {{"predicted", p.npu->predicted},
                  {"logits", integers(p.npu->logits)},
                  {"reference_logits", integers(p.npu->reference_logits)},
                  {"matches_reference", p.npu->matches_reference()},
                  {"npu_cycles", p.npu->npu_cycles}};
    }
    list.push_back(j);
  }
  nlohmann::json j{
      {"model", model}, {"model_kind", kind}, {"architecture", architecture}, {"dataset", dataset}, {"images", list}};
  if (!hex.empty()) {
    j["hex"] = hex;
    j["npu_agrees"] = npu_agrees();
  }
  return j;
}

PredictSummary run_predict(const PredictOptions& options) {
  if (options.images.empty()) throw core::option_error("pictures", "give a picture to classify");
  if (!options.save_input.empty()) {
    if (options.images.size() != 1) {
      throw core::option_error("saved input", "saving the prepared input needs exactly one picture, got {}",
                               options.images.size());
    }
    io::check_output_path(options.save_input);
    io::check_not_input(options.save_input, options.images.front(), "the picture being classified");
  }
  // The pictures first: a bad one fails before the model is read.
  std::vector<image::GrayImage> pictures;
  for (const std::filesystem::path& path : options.images) pictures.push_back(image::read_image(path));

  const LoadedModel model = load_model(options.model);
  PredictSummary summary;
  summary.model = options.model.string();
  summary.kind = model.kind;
  summary.architecture = model.architecture();
  summary.dataset = model.dataset;
  if (!model.dataset.empty() && model.dataset != "mnist") {
    spdlog::warn("{} was trained on {}; pictures are prepared the way MNIST prepared its digits", summary.model,
                 model.dataset);
  }
  const std::size_t side = image::square_input_side(model.inputs(), summary.model);
  for (std::size_t i = 0; i < pictures.size(); ++i) {
    ImagePrediction p;
    p.image = options.images[i];
    p.width = pictures[i].width;
    p.height = pictures[i].height;
    p.input = image::prepare_digit(pictures[i], side, options.images[i].string());
    classify(model, p);
    summary.images.push_back(std::move(p));
  }
  if (!options.save_input.empty()) {
    const image::DigitInput& in = summary.images.front().input;
    image::write_pgm(options.save_input, image::GrayImage{in.side, in.side, in.pixels});
  }
  if (options.npu) {
    summary.hex = options.hex.string();
    run_on_npu(options.hex, model, options.model, summary.images);
  }
  return summary;
}

}  // namespace seatorch::predict
