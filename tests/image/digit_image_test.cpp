// prepare_digit: MNIST test digits drawn the way a user would (scaled up, dark ink on white,
// off-center) come back as the original pixels and the original class; blank pictures and
// non-square models are refused; the scaling and centering steps against hand-computed
// results.
#include "seatorch/image/digit_image.hpp"

#include "../data/data_test_util.hpp"
#include "image_test_util.hpp"
#include "seatorch/core/argmax.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/core/rng.hpp"
#include "seatorch/image/image_file.hpp"
#include "seatorch/model/float_mlp.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>

namespace {

using seatorch::image::GrayImage;

// The largest difference between two equally sized pictures, with where it is.
struct Difference {
  int max = 0;
  std::size_t at = 0;
};
Difference max_difference(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  Difference d;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const int diff = std::abs(static_cast<int>(a[i]) - static_cast<int>(b[i]));
    if (diff > d.max) d = {diff, i};
  }
  return d;
}

std::size_t classify(const seatorch::model::FloatMlp& model, const std::vector<std::uint8_t>& pixels) {
  std::vector<float> x(pixels.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(pixels[i]) / 255.0f;
  return seatorch::core::argmax(seatorch::model::float_forward(model, x, 1));
}

}  // namespace

TEST_CASE("prepare_digit gives back MNIST test digits drawn dark on white and scaled up", "[data]") {
  const std::vector<GrayImage> digits = seatorch::test::mnist_test_digits(40);
  const seatorch::model::FloatMlp model = seatorch::test::small_mnist_model(seatorch::test::load_mnist_small());
  std::size_t exact = 0;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    // Scaled 3x (the box fits 20 x 20 exactly again at 1/3), with uneven margins.
    const GrayImage paper = seatorch::test::paper_digit(digits[i], 3, 7 + i % 5, 30, 11, 2 + i);
    const seatorch::image::DigitInput digit = seatorch::image::prepare_digit(paper, 28, "paper.png");
    INFO("test digit " << i);
    CHECK(digit.inverted);
    CHECK(digit.background == 0);
    REQUIRE(digit.pixels.size() == 784);
    const Difference d = max_difference(digit.pixels, digits[i].pixels);
    INFO("pixel " << d.at << ": prepared " << int(digit.pixels[d.at]) << ", original " << int(digits[i].pixels[d.at]));
    // MNIST's strongest ink is 254 in about a tenth of the digits; stretched to 255 that
    // moves every level by at most one.
    CHECK(d.max <= 1);
    exact += d.max == 0 ? 1 : 0;
    CHECK(classify(model, digit.pixels) == classify(model, digits[i].pixels));
  }
  CHECK(exact >= digits.size() / 2);
}

TEST_CASE("prepare_digit keeps the class of a digit on noisy grey paper read from a PNG file", "[data]") {
  const std::vector<GrayImage> digits = seatorch::test::mnist_test_digits(10);
  const seatorch::model::FloatMlp model = seatorch::test::small_mnist_model(seatorch::test::load_mnist_small());
  const seatorch::test::ScratchDir dir;
  seatorch::core::Rng rng(5);
  std::size_t same = 0;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    // Ink at 40 on paper at 200, +-6 levels of noise, scaled 5x: a photo of a pencil digit.
    GrayImage paper = seatorch::test::paper_digit(digits[i], 5, 20, 15, 25, 30);
    for (std::uint8_t& p : paper.pixels) {
      const int level = 200 - (255 - p) * 160 / 255 + static_cast<int>(rng.next_u64() % 13) - 6;
      p = static_cast<std::uint8_t>(level);
    }
    seatorch::test::write_file(dir / "digit.png",
                               seatorch::test::png_bytes(paper.pixels, paper.width, paper.height, 1));
    const GrayImage read = seatorch::image::read_image(dir / "digit.png");
    REQUIRE(read.pixels == paper.pixels);
    const seatorch::image::DigitInput digit = seatorch::image::prepare_digit(read, 28, "digit.png");
    INFO("test digit " << i << ": background level " << digit.background);
    CHECK(digit.inverted);
    CHECK(digit.background > 0);
    CHECK(digit.ink_width <= 20 * 5);
    CHECK(std::max(digit.scaled_width, digit.scaled_height) == 20);
    same += classify(model, digit.pixels) == classify(model, digits[i].pixels) ? 1 : 0;
  }
  CHECK(same >= 9);
}

TEST_CASE("prepare_digit refuses blank pictures with a clear message", "[data]") {
  const auto refuses = [](const GrayImage& image, const std::string& pattern) {
    INFO(image.width << " x " << image.height);
    seatorch::test::check_input_error([&] { seatorch::image::prepare_digit(image, 28, "blank.png"); }, pattern);
  };
  const std::string blank = "blank\\.png: no digit found: the picture is blank .*";
  refuses(GrayImage{64, 48, std::vector<std::uint8_t>(64 * 48, 255)}, blank);  // all white
  refuses(GrayImage{64, 48, std::vector<std::uint8_t>(64 * 48, 0)}, blank);    // all black
  refuses(GrayImage{1, 1, {128}}, blank);
  // Grey paper with +-10 levels of noise and nothing drawn on it.
  GrayImage noise{50, 50, std::vector<std::uint8_t>(2500)};
  seatorch::core::Rng rng(3);
  for (std::uint8_t& p : noise.pixels) p = static_cast<std::uint8_t>(190 + rng.next_u64() % 21);
  refuses(noise, blank);
  // A faint mark only 20 levels darker than the paper.
  GrayImage faint{30, 30, std::vector<std::uint8_t>(900, 230)};
  faint.pixels[15 * 30 + 15] = 210;
  refuses(faint, blank);
  // Two dots at opposite corners of a 998 x 998 box: each output pixel averages about 2,490
  // source pixels, so neither dot leaves a level of 1 anywhere.
  GrayImage dots{1000, 1000, std::vector<std::uint8_t>(1000 * 1000, 255)};
  dots.pixels[1 * 1000 + 1] = 0;
  dots.pixels[998 * 1000 + 998] = 0;
  refuses(dots, "blank\\.png: no digit found: its 998 x 998 pixels of ink are too thin to survive scaling.*");
}

TEST_CASE("prepare_digit scales the ink box to 20 keeping the aspect ratio and centers it by mass", "[data]") {
  // A white 10 x 40 bar on black, off-center in a 100 x 80 picture: scaled by 1/2 to 5 x 20,
  // its center of mass (2, 9.5) goes to (14, 14): offset (12, 4.5 -> 5).
  GrayImage bar{100, 80, std::vector<std::uint8_t>(8000, 0)};
  for (std::size_t y = 30; y < 70; ++y) {
    for (std::size_t x = 5; x < 15; ++x) bar.pixels[y * 100 + x] = 255;
  }
  const seatorch::image::DigitInput digit = seatorch::image::prepare_digit(bar, 28, "bar.png");
  CHECK_FALSE(digit.inverted);
  CHECK(digit.ink_x == 5);
  CHECK(digit.ink_y == 30);
  CHECK(digit.ink_width == 10);
  CHECK(digit.ink_height == 40);
  CHECK(digit.scaled_width == 5);
  CHECK(digit.scaled_height == 20);
  for (std::size_t y = 0; y < 28; ++y) {
    for (std::size_t x = 0; x < 28; ++x) {
      const bool inside = x >= 12 && x < 17 && y >= 5 && y < 25;
      INFO("pixel (" << x << ", " << y << ")");
      CHECK(int(digit.pixels[y * 28 + x]) == (inside ? 255 : 0));
    }
  }
  // Area averaging: a 3-pixel-wide bar of 255 scaled 20/30 covers 2 output pixels exactly,
  // a 1-pixel one scaled up 20x fills 20 x 1; a 16 x 16 model gets a box of 11.
  GrayImage dot{9, 9, std::vector<std::uint8_t>(81, 0)};
  dot.pixels[4 * 9 + 4] = 200;
  const seatorch::image::DigitInput big = seatorch::image::prepare_digit(dot, 28, "dot.png");
  CHECK(big.scaled_width == 20);
  CHECK(big.scaled_height == 20);
  CHECK(std::count(big.pixels.begin(), big.pixels.end(), 255) == 400);
  const seatorch::image::DigitInput small = seatorch::image::prepare_digit(dot, 16, "dot.png");
  CHECK(small.pixels.size() == 256);
  CHECK(std::count(small.pixels.begin(), small.pixels.end(), 255) == 121);
}

TEST_CASE("prepare_digit averages the exact covered area and keeps the box inside the field", "[data]") {
  // On black, inside a 1-pixel frame: a 10 x 30 block of 255 and one dot of 255 at the top
  // right, 29 columns further. The ink box is 30 x 30, scaled by 2/3 to 20 x 20, so output
  // column k covers source columns [1.5 k, 1.5 k + 1.5): k = 0..5 are 255, k = 6 is
  // (255 * 1 + 0 * 0.5) / 1.5 = 170, and the dot leaves 255 / 2.25 = 113 in the corner.
  // Center of mass: x = 99047 / 34113 = 2.90 wants offset 11, more than the 8 that keeps
  // 20 columns inside 28, so 8; y = 323000 / 34113 = 9.47 gives offset round(4.53) = 5.
  GrayImage picture{32, 32, std::vector<std::uint8_t>(1024, 0)};
  for (std::size_t y = 1; y < 31; ++y) {
    for (std::size_t x = 1; x < 11; ++x) picture.pixels[y * 32 + x] = 255;
  }
  picture.pixels[1 * 32 + 30] = 255;
  const seatorch::image::DigitInput digit = seatorch::image::prepare_digit(picture, 28, "block.png");
  REQUIRE(digit.ink_width == 30);
  REQUIRE(digit.ink_height == 30);
  REQUIRE(digit.scaled_width == 20);
  REQUIRE(digit.scaled_height == 20);
  for (std::size_t y = 0; y < 28; ++y) {
    for (std::size_t x = 0; x < 28; ++x) {
      int expected = 0;
      if (y >= 5 && y < 25 && x >= 8 && x < 14) expected = 255;
      if (y >= 5 && y < 25 && x == 14) expected = 170;
      if (y == 5 && x == 27) expected = 113;
      INFO("pixel (" << x << ", " << y << ")");
      CHECK(int(digit.pixels[y * 28 + x]) == expected);
    }
  }
}

TEST_CASE("square_input_side accepts square inputs and refuses the rest", "[data]") {
  CHECK(seatorch::image::square_input_side(784, "model") == 28);
  CHECK(seatorch::image::square_input_side(256, "model") == 16);
  CHECK(seatorch::image::square_input_side(1, "model") == 1);
  seatorch::test::check_input_error([&] { seatorch::image::square_input_side(785, "m.safetensors"); },
                                    "m\\.safetensors takes 785 inputs, not a square picture.*");
  CHECK_THROWS_AS(seatorch::image::square_input_side(2, "model"), seatorch::core::InputError);
  CHECK_THROWS_AS(seatorch::image::square_input_side(0, "model"), seatorch::core::InputError);
}
