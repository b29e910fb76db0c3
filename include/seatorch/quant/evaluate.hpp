// Accuracy, confusion matrix and throughput of the float and the int8 models on a Dataset.
//
// A Dataset's features are pixel / 255 floats; the int8 model needs the bytes back, which
// dataset_pixels() recovers exactly with lround(x * 255) (and rejects features that are not
// in [0, 1]). The float model runs on the features as they are.
// Deliberately not here: loading data or models, and printing (the CLI does that).
#pragma once

#include "seatorch/data/dataset.hpp"
#include "seatorch/model/evaluation.hpp"
#include "seatorch/model/float_mlp.hpp"
#include "seatorch/quant/int8_engine.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace seatorch::quant {

// The features as bytes, (size(), features); InputError when a feature is not in [0, 1].
std::vector<std::uint8_t> dataset_pixels(const data::Dataset& data);

// Both throw InputError when the model's inputs or outputs do not match the data set's
// features or classes.
model::Evaluation evaluate_float(const model::FloatMlp& model, const data::Dataset& data);
model::Evaluation evaluate_int8(const Int8Engine& engine, const data::Dataset& data);

// Images per second of one inference path on the same images.
struct Throughput {
  std::string path;  // "float", "int8 ref", "int8 avx2", "int8 avx512vnni"
  std::size_t images = 0;
  double seconds = 0.0;
  [[nodiscard]] double images_per_second() const { return seconds > 0.0 ? static_cast<double>(images) / seconds : 0.0; }
};

// One way to run inference, for the benchmark (bench/int8_bench.hpp times them).
struct InferencePath {
  std::string name;            // as Throughput::path
  std::function<void()> pass;  // one pass over all the images the path was made for
};

// The float path (float_forward) and every int8 kernel this CPU has (Int8Engine), each
// running over the same `n` images (n, inputs) in batches of `batch`; the float path first.
// The float path gets the images as pixel / 255 floats, converted here once, outside any
// pass. The passes read `model` and `pixels` in place: both must outlive them.
std::vector<InferencePath> inference_paths(const model::FloatMlp& model, const Int8Model& int8_model,
                                           std::span<const std::uint8_t> pixels, std::size_t n,
                                           std::size_t batch = 256);

}  // namespace seatorch::quant
