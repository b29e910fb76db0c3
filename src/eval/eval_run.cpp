// run_eval(): float or int8 model file -> test-set evaluation (+ an int8 layer dump).
#include "seatorch/eval/eval_run.hpp"

#include "seatorch/core/argmax.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/io/safetensors.hpp"
#include "seatorch/model/float_checkpoint.hpp"
#include "seatorch/model/model_file.hpp"
#include "seatorch/quant/evaluate.hpp"
#include "seatorch/quant/int8_engine.hpp"
#include "seatorch/quant/int8_file.hpp"

namespace seatorch::eval {
namespace {

nlohmann::json dump_layers(const quant::Int8Model& model, const data::Dataset& test, std::size_t index) {
  if (index >= test.size()) {
    throw core::option_error("dumped image", "image {} is not in the test set of {} images (0..{})", index, test.size(),
                             test.size() - 1);
  }
  const auto pixels = data::image_pixels(test, "the int8 model").subspan(index * test.features, test.features);
  std::vector<quant::Int8LayerTrace> trace;
  const std::vector<std::int8_t> logits = quant::int8_forward_ref(model, pixels, &trace);
  nlohmann::json layers = nlohmann::json::array();
  for (std::size_t k = 0; k < trace.size(); ++k) {
    layers.push_back({{"layer", k}, {"accumulators", trace[k].accumulators}, {"outputs", trace[k].outputs}});
  }
  return {{"image", index},
          {"label", test.y[index]},
          {"predicted", core::argmax(logits)},
          {"pixels", std::vector<std::uint8_t>(pixels.begin(), pixels.end())},
          {"layers", layers}};
}

}  // namespace

nlohmann::json EvalRunSummary::to_json() const {
  nlohmann::json j{{"dataset", dataset},
                   {"model_kind", kind},
                   {"architecture", architecture},
                   {"samples", evaluation.samples()},
                   {"accuracy", evaluation.accuracy()},
                   {"per_class_accuracy", evaluation.per_class_accuracy()},
                   {"confusion", evaluation.confusion()}};
  if (!kernel.empty()) j["int8_kernel"] = kernel;
  if (!layers_dump.is_null()) j["dump"] = layers_dump;
  return j;
}

EvalRunSummary run_eval(const EvalRunOptions& options) {
  const io::SafetensorsFile file = io::load_safetensors(options.model);
  const std::string source = options.model.string();
  data::DataOptions data_options = options.data;
  data_options.test_only = true;  // only the test images are used
  data_options.name = model::dataset_for(file.metadata, source, data_options.name);
  const data::DataSplit data = data::load_dataset(data_options);

  EvalRunSummary summary;
  summary.dataset = data.name;
  if (model::model_file_kind(file) == model::ModelFileKind::kInt8Model) {
    quant::Int8ModelFile int8 = quant::int8_model_from_file(file, source);
    summary.kind = "int8";
    summary.architecture = int8.model.architecture();
    if (options.dump_image) summary.layers_dump = dump_layers(int8.model, data.test, *options.dump_image);
    const quant::Int8Engine engine(std::move(int8.model), options.kernel);
    summary.kernel = std::string(engine.kernel());
    summary.evaluation = quant::evaluate_int8(engine, data.test);
  } else {
    if (options.dump_image) {
      throw core::option_error("dumped image", "dumping layers needs an int8 model; {} is a float checkpoint", source);
    }
    const model::FloatMlp model = model::float_mlp_from_checkpoint(file, source);
    summary.kind = "float";
    summary.architecture = model.architecture();
    summary.evaluation = model::evaluate_float(model, data.test);
  }
  return summary;
}

}  // namespace seatorch::eval
