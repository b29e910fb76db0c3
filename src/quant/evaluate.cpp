// Evaluation, and the float and int8 inference paths that `seatorch bench int8` times.
#include "seatorch/quant/evaluate.hpp"

#include "seatorch/core/error.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

namespace seatorch::quant {
namespace {

// Images per evaluation pass: bounds the float path's temporary activations.
constexpr std::size_t kEvalBatch = 1024;

void check_shapes(std::size_t inputs, std::size_t outputs, const data::Dataset& data, std::string_view what) {
  if (inputs != data.features || outputs != data.classes) {
    throw core::input_error("the {} model takes {} inputs and gives {} classes, but the data set has {} features and {} "
                      "classes; evaluate it on the data set it was trained on", what, inputs, outputs, data.features,
                      data.classes);
  }
}

// Tallies predictions against labels; predict(first, count) returns count classes.
model::Evaluation tally(const data::Dataset& data, const std::function<std::vector<std::int32_t>(std::size_t, std::size_t)>& predict) {
  model::Evaluation e(data.classes);
  for (std::size_t first = 0; first < data.size(); first += kEvalBatch) {
    const std::size_t count = std::min(kEvalBatch, data.size() - first);
    const std::vector<std::int32_t> predicted = predict(first, count);
    for (std::size_t s = 0; s < count; ++s) e.add(first + s, data.y[first + s], predicted[s]);
  }
  return e;
}

std::vector<std::int32_t> float_predict(const model::FloatMlp& model, std::span<const float> x, std::size_t n) {
  const std::vector<float> logits = model::float_forward(model, x, n);
  std::vector<std::int32_t> classes(n);
  for (std::size_t s = 0; s < n; ++s) {
    classes[s] = static_cast<std::int32_t>(model::argmax_float(std::span<const float>(logits).subspan(s * model.outputs(), model.outputs())));
  }
  return classes;
}

}  // namespace

std::vector<std::uint8_t> dataset_pixels(const data::Dataset& data) {
  std::vector<std::uint8_t> pixels(data.x.size());
  for (std::size_t i = 0; i < data.x.size(); ++i) {
    const float x = data.x[i];
    if (!(x >= 0.0f && x <= 1.0f)) {
      throw core::input_error("feature {} of sample {} is {}, not a pixel / 255 in [0, 1]; the int8 model needs image data "
                        "(mnist, fashion-mnist)", i % data.features, i / data.features, x);
    }
    pixels[i] = static_cast<std::uint8_t>(std::lround(x * 255.0f));
  }
  return pixels;
}

model::Evaluation evaluate_float(const model::FloatMlp& model, const data::Dataset& data) {
  check_shapes(model.inputs(), model.outputs(), data, "float");
  return tally(data, [&](std::size_t first, std::size_t count) {
    return float_predict(model, std::span<const float>(data.x).subspan(first * data.features, count * data.features), count);
  });
}

model::Evaluation evaluate_int8(const Int8Engine& engine, const data::Dataset& data) {
  check_shapes(engine.model().inputs(), engine.model().outputs(), data, "int8");
  const std::vector<std::uint8_t> pixels = dataset_pixels(data);
  return tally(data, [&](std::size_t first, std::size_t count) {
    return engine.predict(std::span<const std::uint8_t>(pixels).subspan(first * data.features, count * data.features), count);
  });
}

std::vector<InferencePath> inference_paths(const model::FloatMlp& model, const Int8Model& int8_model,
                                           std::span<const std::uint8_t> pixels, std::size_t n, std::size_t batch) {
  const std::size_t in = model.inputs();
  if (int8_model.inputs() != in || int8_model.outputs() != model.outputs() || pixels.size() != n * in || n == 0 || batch == 0) {
    throw core::input_error("inference_paths needs a float and an int8 model of the same shape and at least one image");
  }
  // Runs `batch_run(first, count)` over the n images, batch by batch.
  const auto over_batches = [n, batch](std::function<void(std::size_t, std::size_t)> batch_run) {
    return [n, batch, batch_run = std::move(batch_run)] {
      for (std::size_t first = 0; first < n; first += batch) batch_run(first, std::min(batch, n - first));
    };
  };
  auto x = std::make_shared<std::vector<float>>(pixels.size());  // (n, in)
  for (std::size_t i = 0; i < x->size(); ++i) (*x)[i] = static_cast<float>(pixels[i]) / 255.0f;
  std::vector<InferencePath> paths;
  paths.push_back({"float", over_batches([&model, x, in](std::size_t first, std::size_t count) {
                     model::float_forward(model, std::span<const float>(*x).subspan(first * in, count * in), count);
                   })});
  for (const std::string& name : kernels::int8_kernel_names()) {
    auto engine = std::make_shared<const Int8Engine>(int8_model, name);
    auto logits = std::make_shared<std::vector<std::int8_t>>(batch * int8_model.outputs());
    paths.push_back({"int8 " + name, over_batches([engine, logits, pixels, in](std::size_t first, std::size_t count) {
                       engine->forward(pixels.subspan(first * in, count * in), count,
                                       std::span<std::int8_t>(*logits).first(count * engine->model().outputs()));
                     })});
  }
  return paths;
}

}  // namespace seatorch::quant
