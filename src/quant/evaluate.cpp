// Evaluation, and the float and int8 inference paths that `seatorch bench int8` times.
#include "seatorch/quant/evaluate.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/kernels/pixel_values.hpp"

#include <algorithm>
#include <functional>
#include <memory>

namespace seatorch::quant {

model::Evaluation evaluate_int8(const Int8Engine& engine, const data::Dataset& data) {
  model::check_model_fits(engine.model().inputs(), engine.model().outputs(), data, "int8");
  const std::span<const std::uint8_t> pixels = data::image_pixels(data, "the int8 model");
  return model::tally_predictions(data, [&](std::size_t, std::size_t first, std::size_t count) {
    return engine.predict(pixels.subspan(first * data.features, count * data.features), count);
  });
}

std::vector<InferencePath> inference_paths(const model::FloatMlp& model, const Int8Model& int8_model,
                                           std::span<const std::uint8_t> pixels, std::size_t n, std::size_t batch) {
  const std::size_t in = model.inputs();
  if (int8_model.inputs() != in || int8_model.outputs() != model.outputs() || pixels.size() != n * in || n == 0 ||
      batch == 0) {
    throw core::input_error("inference_paths needs a float and an int8 model of the same shape and at least one image");
  }
  // Runs `batch_run(first, count)` over the n images, batch by batch.
  const auto over_batches = [n, batch](std::function<void(std::size_t, std::size_t)> batch_run) {
    return [n, batch, batch_run = std::move(batch_run)] {
      for (std::size_t first = 0; first < n; first += batch) batch_run(first, std::min(batch, n - first));
    };
  };
  auto x = std::make_shared<std::vector<float>>(pixels.size());  // (n, in)
  kernels::pixel_values(pixels, *x);
  const std::size_t out = model.outputs();
  std::vector<InferencePath> paths;
  auto float_logits = std::make_shared<std::vector<float>>(n * out);  // (n, out): the last pass's
  // Its weights made ready once, as the int8 engines' are, and its activations reused.
  auto forward = std::make_shared<const model::FloatForward>(model);
  auto buffers = std::make_shared<model::ForwardBuffers>();
  paths.push_back({"float", "",
                   over_batches([forward, buffers, x, in, out, float_logits](std::size_t first, std::size_t count) {
                     const std::span<const float> y =
                         forward->run(std::span<const float>(*x).subspan(first * in, count * in), count, *buffers);
                     std::copy(y.begin(), y.end(), float_logits->begin() + static_cast<std::ptrdiff_t>(first * out));
                   }),
                   [float_logits] { return *float_logits; }});
  for (const std::string& name : kernels::int8_kernel_names()) {
    auto engine = std::make_shared<const Int8Engine>(int8_model, name);
    auto logits = std::make_shared<std::vector<std::int8_t>>(n * out);  // (n, out): the last pass's
    paths.push_back({"int8 " + name, name,
                     over_batches([engine, logits, pixels, in, out](std::size_t first, std::size_t count) {
                       engine->forward(pixels.subspan(first * in, count * in), count,
                                       std::span<std::int8_t>(*logits).subspan(first * out, count * out));
                     }),
                     [logits] { return std::vector<float>(logits->begin(), logits->end()); }});
  }
  return paths;
}

}  // namespace seatorch::quant
