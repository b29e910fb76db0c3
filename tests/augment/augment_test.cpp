// Augmentation against references: the affine transforms' exact cases (identity, integer
// shifts, rotation by 90 degrees = transposing and flipping), the drawn parameters within
// their ranges, the elastic field's statistics against Simard's formulas for alpha and sigma,
// per-image determinism independent of the batch and of the threads' split, the list parser,
// and the example grid.
#include "../data/data_test_util.hpp"
#include "../same_bits.hpp"
#include "seatorch/augment/augmenter.hpp"
#include "seatorch/augment/example_grid.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/data/registry.hpp"
#include "seatorch/kernels/pixel_values.hpp"
#include "seatorch/kernels/product_log.hpp"
#include "seatorch/kernels/warp.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace seatorch;

namespace {

constexpr std::size_t kSide = 28;

std::vector<std::uint8_t> random_image(core::Rng& rng) {
  std::vector<std::uint8_t> image(kSide * kSide);
  for (auto& p : image) p = static_cast<std::uint8_t>(rng.below(256));
  return image;
}

std::vector<float> warp(const std::vector<std::uint8_t>& image, const kernels::WarpMap& map) {
  std::vector<float> out(kSide * kSide);
  std::vector<std::uint32_t> scratch(kernels::warp_scratch_words(kSide, kSide));
  kernels::WarpArgs args;
  args.width = kSide;
  args.height = kSide;
  args.source = image.data();
  args.map = map;
  args.out = out.data();
  args.scratch = scratch.data();
  kernels::warp_bilinear(args);
  return out;
}

}  // namespace

TEST_CASE("affine source maps: identity, integer shifts and quarter turns move pixels exactly", "[augment]") {
  core::Rng rng(3);
  const std::vector<std::uint8_t> image = random_image(rng);
  const auto value = [&](std::size_t y, std::size_t x) { return kernels::pixel_value(image[y * kSide + x]); };

  const std::vector<float> same = warp(image, augment::source_map(augment::Affine{}, kSide, kSide));
  for (std::size_t i = 0; i < same.size(); ++i) {
    INFO("pixel " << i << ": " << same[i] << " vs " << kernels::pixel_value(image[i]));
    REQUIRE(same[i] == kernels::pixel_value(image[i]));
  }

  augment::Affine shift;  // the digit moves 3 right and 2 up: out(y, x) = in(y + 2, x - 3)
  shift.shift_x = 3.0;
  shift.shift_y = -2.0;
  const std::vector<float> shifted = warp(image, augment::source_map(shift, kSide, kSide));
  for (std::size_t y = 0; y < kSide; ++y) {
    for (std::size_t x = 0; x < kSide; ++x) {
      const float expected = (x >= 3 && y + 2 < kSide) ? value(y + 2, x - 3) : 0.0f;
      INFO("shifted (" << y << ", " << x << "): " << shifted[y * kSide + x] << " vs " << expected);
      REQUIRE(shifted[y * kSide + x] == expected);
    }
  }

  augment::Affine quarter;  // +90 degrees in image coordinates (y down): out(y, x) = in(27 - x, y)
  quarter.rotate_degrees = 90.0;
  const std::vector<float> turned = warp(image, augment::source_map(quarter, kSide, kSide));
  for (std::size_t y = 0; y < kSide; ++y) {
    for (std::size_t x = 0; x < kSide; ++x) {
      INFO("turned (" << y << ", " << x << "): " << turned[y * kSide + x] << " vs transposed and flipped "
                      << value(kSide - 1 - x, y));
      REQUIRE(turned[y * kSide + x] == value(kSide - 1 - x, y));
    }
  }
  quarter.rotate_degrees = 360.0;
  CHECK(warp(image, augment::source_map(quarter, kSide, kSide)) == same);
}

TEST_CASE("affine parameters are drawn within their ranges and reach their ends", "[augment]") {
  const augment::AffineRanges r{12.0, 2.5, 0.15, 8.0};
  core::Rng rng(5);
  double lo_rot = 1e9, hi_rot = -1e9, lo_scale = 1e9, hi_scale = -1e9, hi_shift = 0.0, hi_shear = 0.0;
  for (int i = 0; i < 4000; ++i) {
    const augment::Affine a = augment::draw_affine(r, rng);
    lo_rot = std::min(lo_rot, a.rotate_degrees);
    hi_rot = std::max(hi_rot, a.rotate_degrees);
    lo_scale = std::min(lo_scale, a.scale);
    hi_scale = std::max(hi_scale, a.scale);
    hi_shift = std::max({hi_shift, std::abs(a.shift_x), std::abs(a.shift_y)});
    hi_shear = std::max(hi_shear, std::abs(a.shear_degrees));
  }
  CHECK(lo_rot >= -12.0);
  CHECK(lo_rot < -11.9);
  CHECK(hi_rot <= 12.0);
  CHECK(hi_rot > 11.9);
  CHECK(lo_scale >= 0.85);
  CHECK(hi_scale <= 1.15);
  CHECK(hi_scale > 1.149);
  CHECK(hi_shift <= 2.5);
  CHECK(hi_shift > 2.49);
  CHECK(hi_shear <= 8.0);
  CHECK(hi_shear > 7.99);
  CHECK_THROWS_AS(augment::validate_ranges({10.0, 2.0, 1.0, 0.0}), core::OptionError);
  CHECK_THROWS_AS(augment::validate_ranges({-1.0, 2.0, 0.1, 0.0}), core::OptionError);
  // Finite but past any image: 1e300 pixels reached float as infinity.
  CHECK_THROWS_WITH(augment::validate_ranges({10.0, 1e300, 0.1, 0.0}),
                    Catch::Contains("the shift range must be in [0, 4096] pixels, got 1e+300"));
  CHECK_NOTHROW(augment::validate_ranges({10.0, augment::kMaxShiftPixels, 0.1, 0.0}));
  CHECK_THROWS_WITH(augment::validate_elastic({1e300, 4.0}),
                    Catch::Contains("the elastic alpha must be in [0, 4096] pixels, got 1e+300"));
  CHECK_THROWS_AS(augment::validate_elastic({std::nan(""), 4.0}), core::OptionError);
  CHECK_NOTHROW(augment::validate_elastic({augment::kMaxElasticAlpha, 4.0}));
}

TEST_CASE("the elastic field has Simard's statistics: std alpha / (sigma sqrt(12 pi)), correlation "
          "exp(-r^2 / 4 sigma^2)",
          "[augment]") {
  for (const augment::ElasticParams p : {augment::ElasticParams{34.0, 4.0}, augment::ElasticParams{8.0, 2.0}}) {
    INFO("alpha " << p.alpha << ", sigma " << p.sigma);
    augment::ElasticBank bank(p, kSide);
    core::Rng rng(9);
    double sum = 0.0, squares = 0.0, cross_dxdy = 0.0;
    std::vector<double> lag_products(3, 0.0);  // lags sigma, 2 sigma, 3 sigma along x and y
    std::size_t n = 0, lag_n = 0;
    const auto lag = static_cast<std::size_t>(p.sigma);
    for (int draw = 0; draw < 8; ++draw) {
      bank.draw(rng);
      for (int w = 0; w < 200; ++w) {
        const augment::ElasticWindow window = bank.window(rng);
        for (std::size_t y = 0; y < kSide; ++y) {
          for (std::size_t x = 0; x < kSide; ++x) {
            const double dx = window.dx[y * window.stride + x];
            const double dy = window.dy[y * window.stride + x];
            sum += dx;
            squares += dx * dx;
            cross_dxdy += dx * dy;
            ++n;
            if (x + 3 * lag < kSide && y + 3 * lag < kSide) {
              for (std::size_t k = 1; k <= 3; ++k) {
                lag_products[k - 1] +=
                    dx * (window.dx[y * window.stride + x + k * lag] + window.dx[(y + k * lag) * window.stride + x]) /
                    2.0;
              }
              ++lag_n;
            }
          }
        }
      }
    }
    const double mean = sum / static_cast<double>(n);
    const double variance = squares / static_cast<double>(n) - mean * mean;
    const double expected_std = p.alpha / (p.sigma * std::sqrt(12.0 * 3.141592653589793));
    CHECK(std::abs(mean) < 0.05 * expected_std);
    CHECK(std::sqrt(variance) == Approx(expected_std).epsilon(0.04));
    CHECK(augment::elastic_std(p) == Approx(expected_std));
    CHECK(std::abs(cross_dxdy / static_cast<double>(n)) < 0.05 * variance);  // dx and dy independent
    for (std::size_t k = 1; k <= 3; ++k) {
      const double r = static_cast<double>(k * lag);
      const double expected = std::exp(-r * r / (4.0 * p.sigma * p.sigma));
      const double measured = lag_products[k - 1] / static_cast<double>(lag_n) / variance;
      INFO("lag " << r << " px: correlation " << measured << " vs " << expected);
      CHECK(std::abs(measured - expected) < 0.04);
    }
  }
}

TEST_CASE("an image's augmentation depends on the seed, the epoch and the sample only", "[augment]") {
  const data::DataSplit data = test::load_mnist_small();
  augment::AugmentConfig config;
  augment::parse_augment_list("affine,elastic", config);
  const std::size_t pixels = kSide * kSide;
  augment::Augmenter a(config, data.train, 42);
  augment::Augmenter b(config, data.train, 42);
  std::vector<float> batch(3 * pixels);
  std::vector<float> alone(pixels);
  const std::vector<std::size_t> rows{5, 9, 100};
  a.augment(rows, 2, batch);
  b.augment(std::vector<std::size_t>{9}, 2, alone);
  CHECK(std::equal(alone.begin(), alone.end(), batch.begin() + static_cast<std::ptrdiff_t>(pixels)));
  b.augment(std::vector<std::size_t>{9}, 3, alone);  // another epoch: another transform
  CHECK_FALSE(std::equal(alone.begin(), alone.end(), batch.begin() + static_cast<std::ptrdiff_t>(pixels)));
  augment::Augmenter other_seed(config, data.train, 43);
  other_seed.augment(std::vector<std::size_t>{9}, 2, alone);
  CHECK_FALSE(std::equal(alone.begin(), alone.end(), batch.begin() + static_cast<std::ptrdiff_t>(pixels)));
  // The elastic bank's smoothing products are the augmentation's, not those of the training
  // step that records around it (bench train lists the step's).
  kernels::ProductLog log;
  {
    const kernels::RecordProducts recording(log);
    augment::Augmenter(config, data.train, 42).augment(rows, 4, batch);
  }
  CHECK(log.records().empty());
  // Real-valued data cannot be augmented.
  CHECK_THROWS_AS(augment::Augmenter(config, data::load_dataset("moons").train, 1), core::InputError);
}

namespace {

// 50 images of the committed subset with both transforms (seed 5), and their pixels as one
// thread augments them: the oracle of the tests that spread the work differently.
struct OneThreadBatch {
  OneThreadBatch(std::size_t row_step, std::size_t batch_epoch) : epoch(batch_epoch) {
    augment::parse_augment_list("affine,elastic", config);
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = (row_step * i) % data.train.size();
    const core::ScopedThreads count(1);
    augment::Augmenter(config, data.train, 5).augment(rows, epoch, pixels);
  }

  // Fails naming the first image and pixel where got differs from one thread's pixels.
  void check_same(const std::vector<float>& got, const std::string& how) const {
    const std::optional<std::size_t> first = test::first_bit_difference(got, pixels);
    INFO(how << ": first difference at image " << first.value_or(0) / (kSide * kSide) << ", pixel "
             << first.value_or(0) % (kSide * kSide));
    CHECK_FALSE(first.has_value());
  }

  data::DataSplit data = test::load_mnist_small();
  augment::AugmentConfig config;
  std::vector<std::size_t> rows = std::vector<std::size_t>(50);
  std::size_t epoch;
  std::vector<float> pixels = std::vector<float>(50 * kSide * kSide);
};

}  // namespace

TEST_CASE("a batch augmented on 2 or 3 threads, split evenly or not, has 1 thread's bits", "[augment]") {
  const OneThreadBatch one(7, 1);
  const std::vector<std::vector<double>> splits{{1, 1}, {0.8, 0.2}, {0.1, 0.6, 0.3}};
  for (const std::vector<double>& split : splits) {
    const core::ScopedThreads count(split.size());
    const core::ScopedShares shares(split);
    std::vector<float> many(one.pixels.size());
    augment::Augmenter(one.config, one.data.train, 5).augment(one.rows, one.epoch, many);
    one.check_same(many, "shares " + Catch::Detail::stringify(split));
  }
}

TEST_CASE("a batch whose images idle threads transformed has 1 thread's bits", "[augment]") {
  const OneThreadBatch one(11, 3);
  const core::ScopedThreads count(2);
  for (const int wait_ms : {0, 1, 20}) {  // none, some, or all of the images taken by the worker
    augment::Augmenter augmenter(one.config, one.data.train, 5);
    std::vector<float> idle(one.pixels.size());
    augmenter.start(one.rows, one.epoch, idle);
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
    augmenter.finish();
    one.check_same(idle, "after " + std::to_string(wait_ms) + " ms");
  }
  // One batch at a time.
  augment::Augmenter augmenter(one.config, one.data.train, 5);
  std::vector<float> out(one.pixels.size());
  CHECK_THROWS_AS(augmenter.finish(), std::logic_error);
  augmenter.start(one.rows, one.epoch, out);
  CHECK_THROWS_AS(augmenter.start(one.rows, one.epoch, out), std::logic_error);
  augmenter.finish();
}

TEST_CASE("augmentation lists parse, print back, and name what is wrong", "[augment]") {
  augment::AugmentConfig c;
  for (const char* list : {"none", "affine", "elastic", "affine,elastic"}) {
    augment::parse_augment_list(list, c);
    CHECK(augment::augment_list(c) == list);
  }
  augment::parse_augment_list("elastic,affine", c);
  CHECK(augment::augment_list(c) == "affine,elastic");
  CHECK_THROWS_WITH(augment::parse_augment_list("affine,flip", c), Catch::Contains("unknown augmentation 'flip'"));
  CHECK_THROWS_AS(augment::parse_augment_list("none,affine", c), core::OptionError);
  CHECK_THROWS_AS(augment::parse_augment_list("", c), core::OptionError);
}

TEST_CASE("the example grid shows each image as it is, then as the first epochs augment it", "[augment]") {
  const data::DataSplit data = test::load_mnist_small();
  augment::AugmentConfig config;
  augment::parse_augment_list("affine,elastic", config);
  const augment::ExampleGridSize size{3, 4, 2};
  const image::GrayImage grid = augment::example_grid(config, data.train, 7, size);
  REQUIRE(grid.width == 5 * 30 - 2);
  REQUIRE(grid.height == 3 * 30 - 2);
  const auto cell = [&](std::size_t row, std::size_t col) {
    std::vector<std::uint8_t> c;
    for (std::size_t y = 0; y < kSide; ++y) {
      for (std::size_t x = 0; x < kSide; ++x) c.push_back(grid.at(col * 30 + x, row * 30 + y));
    }
    return c;
  };
  for (std::size_t r = 0; r < 3; ++r) {
    const auto original = data.train.pixels_of(r);
    CHECK(std::equal(original.begin(), original.end(), cell(r, 0).begin()));
    // Epoch 1's column is exactly what the trainer's augmenter makes of that image.
    augment::Augmenter trainer_view(config, data.train, augment::augment_seed(7));
    std::vector<float> values(kSide * kSide);
    trainer_view.augment(std::vector<std::size_t>{r}, 1, values);
    const std::vector<std::uint8_t> epoch1 = cell(r, 1);
    for (std::size_t i = 0; i < values.size(); ++i) {
      INFO("image " << r << " pixel " << i);
      REQUIRE(epoch1[i] == static_cast<std::uint8_t>(std::lround(values[i] * 255.0f)));
    }
    CHECK(cell(r, 1) != cell(r, 2));
  }
}
