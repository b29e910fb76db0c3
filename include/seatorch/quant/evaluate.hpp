// The int8 model's accuracy and confusion matrix on an image data set (its pixel bytes, as
// the Mini NPU sees them), and the float and int8 inference paths `seatorch bench int8`
// times. The float evaluator is model/evaluate.hpp; both share its tally.
// Deliberately not here: loading data or models, and printing (the CLI does that).
#pragma once

#include "seatorch/data/dataset.hpp"
#include "seatorch/model/evaluate.hpp"
#include "seatorch/model/float_mlp.hpp"
#include "seatorch/quant/int8_engine.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace seatorch::quant {

// Throws InputError when the model does not fit the data set or the data set is not images.
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
  std::string kernel;          // the int8 kernel it runs (kernels/int8_kernels.hpp); empty for float
  std::function<void()> pass;  // one pass over all the images the path was made for
  // The logits of the last pass, (n, outputs), as floats (an int8 path's are its int8
  // values): what the pass computed, for tests to compare against the reference models.
  std::function<std::vector<float>()> logits;
};

// The float path (model::FloatForward) and every int8 kernel this CPU has (Int8Engine), each
// running over the same `n` images (n, inputs) in batches of `batch`; the float path first.
// The float path gets the images as pixel / 255 floats, converted here once, outside any
// pass. The passes read `model` and `pixels` in place: both must outlive them. The default
// batch is whole chunks of the int8 engine (and whole 8-row tiles of the float kernels).
std::vector<InferencePath> inference_paths(const model::FloatMlp& model, const Int8Model& int8_model,
                                           std::span<const std::uint8_t> pixels, std::size_t n,
                                           std::size_t batch = 4 * Int8Engine::kChunk);

}  // namespace seatorch::quant
