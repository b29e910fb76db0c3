// The float evaluator against hand-counted predictions of a known model, on both of a
// data set's encodings (real values and pixel bytes), and over several of its batches on
// one to three threads; the tally's batches each asked for once.
#include "seatorch/model/evaluate.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/core/parallel.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace model = seatorch::model;
namespace data = seatorch::data;

namespace {

// One linear layer with identity weights: the prediction is the index of the larger feature.
model::FloatMlp identity2() {
  model::FloatMlp m;
  m.layers.push_back({2, 2, {1, 0, 0, 1}, {0, 0}, false});
  return m;
}

}  // namespace

TEST_CASE("evaluate_float counts a confusion matrix of a known model", "[model]") {
  data::Dataset d;
  d.features = 2;
  d.classes = 2;
  d.x = {1, 0, 0, 1, 1, 0, 0, 1, 2, 1};  // predictions 0, 1, 0, 1, 0
  d.y = {0, 1, 1, 0, 0};
  const model::Evaluation e = model::evaluate_float(identity2(), d);
  CHECK(e.samples() == 5);
  CHECK(e.correct() == 3);
  CHECK(e.accuracy() == Approx(0.6));
  CHECK(e.confusion() == std::vector<std::size_t>{2, 1, 1, 1});  // [true][predicted]
  CHECK(e.per_class_accuracy() == std::vector<double>{2.0 / 3.0, 0.5});
  const model::Evaluation part = model::evaluate_float(identity2(), d, 1, 2);  // samples 1 and 2
  CHECK(part.samples() == 2);
  CHECK(part.correct() == 1);
  CHECK(model::evaluate_float(identity2(), d, 3, 100).samples() == 2);  // clamped to the data set
  d.y[4] = 2;                                                           // a label outside the classes
  CHECK_THROWS_AS(model::evaluate_float(identity2(), d), seatorch::core::InputError);
  d.y[4] = 0;
  d.features = 3;
  CHECK_THROWS_AS(model::evaluate_float(identity2(), d), seatorch::core::InputError);
}

TEST_CASE("evaluate_float tallies every sample once across its batches", "[model]") {
  // Enough samples for several of the evaluator's batches and a short last one, counted from
  // an offset: sample s is predicted 0 when s % 3 == 0 (else 1) and labelled s % 2.
  constexpr std::size_t kSamples = 1100;
  data::Dataset d;
  d.features = 2;
  d.classes = 2;
  for (std::size_t s = 0; s < kSamples; ++s) {
    const bool first = s % 3 == 0;
    d.x.push_back(first ? 1.0f : 0.0f);
    d.x.push_back(first ? 0.0f : 1.0f);
    d.y.push_back(static_cast<std::int32_t>(s % 2));
  }
  const std::size_t from = 5;
  const std::size_t count = 1090;
  std::size_t expected = 0;
  for (std::size_t s = from; s < from + count; ++s) expected += (s % 3 == 0 ? 0u : 1u) == s % 2 ? 1 : 0;
  for (std::size_t threads : {1u, 2u, 3u}) {  // the batches split across the threads
    const seatorch::core::ScopedThreads scoped(threads);
    INFO(threads << " threads");
    const model::Evaluation e = model::evaluate_float(identity2(), d, from, count);
    CHECK(e.samples() == count);
    CHECK(e.correct() == expected);
  }
}

TEST_CASE("tally_predictions asks for each batch once, each part on one thread at a time", "[model]") {
  // A predictor that records which samples it was asked for and on which part, and predicts
  // class s % 2 for sample s; labels s % 3 == 0.
  constexpr std::size_t kSamples = 2000;
  data::Dataset d;
  d.features = 1;
  d.classes = 2;
  d.x.assign(kSamples, 0.0f);
  for (std::size_t s = 0; s < kSamples; ++s) d.y.push_back(s % 3 == 0 ? 1 : 0);
  for (std::size_t threads : {1u, 2u, 3u}) {
    const seatorch::core::ScopedThreads scoped(threads);
    std::vector<std::atomic<int>> asked(kSamples);
    std::vector<std::atomic<int>> busy(threads);  // calls under way on each part
    std::atomic<bool> part_out_of_range{false};
    std::atomic<bool> part_shared{false};
    const model::Evaluation e = model::tally_predictions(
        d,
        [&](std::size_t part, std::size_t first, std::size_t n) {
          if (part >= threads) {
            part_out_of_range = true;
            return std::vector<std::int32_t>(n, 0);
          }
          if (busy[part].fetch_add(1) != 0) part_shared = true;
          std::vector<std::int32_t> classes(n);
          for (std::size_t s = 0; s < n; ++s) {
            asked[first + s].fetch_add(1);
            classes[s] = static_cast<std::int32_t>((first + s) % 2);
          }
          busy[part].fetch_sub(1);
          return classes;
        },
        7, 1990);
    INFO(threads << " threads");
    CHECK_FALSE(part_out_of_range);
    CHECK_FALSE(part_shared);
    for (std::size_t s = 0; s < kSamples; ++s) {
      INFO("sample " << s << " asked " << asked[s].load() << " times");
      CHECK(asked[s].load() == (s >= 7 && s < 1997 ? 1 : 0));
    }
    std::size_t expected = 0;  // predicted s % 2 == label (s % 3 == 0)
    for (std::size_t s = 7; s < 1997; ++s) expected += (s % 2 == 1) == (s % 3 == 0) ? 1 : 0;
    CHECK(e.samples() == 1990);
    CHECK(e.correct() == expected);
  }
}

TEST_CASE("evaluate_float sees pixel bytes as p / 255", "[model]") {
  // Bias -0.5 on class 1: class 1 wins only when pixel 1 / 255 exceeds pixel 0 / 255 + 0.5.
  model::FloatMlp m = identity2();
  m.layers[0].bias = {0.0f, -0.5f};
  data::Dataset d;
  d.features = 2;
  d.classes = 2;
  d.pixels = {0, 200, 100, 200, 0, 127, 0, 128};  // 200/255 > 0.5; 100/255 + 0.5 > 200/255; 127/255 < 0.5 < 128/255
  d.y = {1, 0, 0, 1};
  const model::Evaluation e = model::evaluate_float(m, d);
  CHECK(e.correct() == 4);
}
