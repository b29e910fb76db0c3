// Helpers shared by the picture tests: an InputError message check, encoders (stb_image_write, an implementation apart from
// the stb_image decoder under test; PGM by hand), MNIST test digits from the committed
// subset, and the synthetic "user's picture" of a digit: scaled up, dark ink on light paper.
#pragma once

#include "seatorch/core/error.hpp"
#include "seatorch/data/dataset.hpp"
#include "seatorch/image/gray_image.hpp"
#include "seatorch/model/float_mlp.hpp"

#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace seatorch::test {

// Runs `f`, which must throw InputError with a message matching the regular expression.
template <typename F>
void check_input_error(F&& f, const std::string& pattern) {
  try {
    f();
    FAIL_CHECK("no InputError; expected one matching " << pattern);
  } catch (const core::InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Matchers::Matches(pattern));
  }
}

// Encodes interleaved 8-bit samples (height, width, channels) with stb_image_write.
std::vector<std::uint8_t> png_bytes(const std::vector<std::uint8_t>& samples, std::size_t width, std::size_t height,
                                    std::size_t channels);
std::vector<std::uint8_t> bmp_bytes(const std::vector<std::uint8_t>& samples, std::size_t width, std::size_t height,
                                    std::size_t channels);
std::vector<std::uint8_t> jpeg_bytes(const std::vector<std::uint8_t>& samples, std::size_t width, std::size_t height,
                                     std::size_t channels, int quality);

// Recomputes the CRC of the PNG chunk at byte `offset` (after editing its data).
void fix_png_crc(std::vector<std::uint8_t>& png, std::size_t offset);

// A small float model (784-32-10, 4 epochs) trained on data/mnist-small (load_mnist_small(),
// data_test_util.hpp): well above 80% on its test part, enough to tell whether two pictures
// look like the same digit.
model::FloatMlp small_mnist_model(const data::DataSplit& data);

// The first `count` test images of data/mnist-small as 28 x 28 pictures (light ink on black).
std::vector<image::GrayImage> mnist_test_digits(std::size_t count);

// What a user might photograph: `digit` scaled up `scale` times (each pixel a scale x scale
// block), inverted to dark ink on white, with `left`, `top`, `right`, `bottom` white
// pixels of margin.
image::GrayImage paper_digit(const image::GrayImage& digit, std::size_t scale, std::size_t left, std::size_t top,
                             std::size_t right, std::size_t bottom);

}  // namespace seatorch::test
