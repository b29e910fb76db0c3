// The encoders of image_test_util.hpp: the one test file that compiles stb_image_write.
#include "image_test_util.hpp"

#include "../data/data_test_util.hpp"
#include "seatorch/data/idx.hpp"
#include "seatorch/data/registry.hpp"
#include "seatorch/model/engine_weights.hpp"
#include "seatorch/train/tensor_trainer.hpp"

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
#include <stb/stb_image_write.h>

#include <zlib.h>

#include <stdexcept>

namespace seatorch::test {
namespace {

void append(void* context, void* data, int size) {
  auto& out = *static_cast<std::vector<std::uint8_t>*>(context);
  const auto* bytes = static_cast<const std::uint8_t*>(data);
  out.insert(out.end(), bytes, bytes + size);
}

std::vector<std::uint8_t> checked(int ok, std::vector<std::uint8_t> out) {
  if (ok == 0 || out.empty()) throw std::runtime_error("stb_image_write failed");
  return out;
}

}  // namespace

std::vector<std::uint8_t> png_bytes(const std::vector<std::uint8_t>& samples, std::size_t width, std::size_t height,
                                    std::size_t channels) {
  std::vector<std::uint8_t> out;
  const int w = static_cast<int>(width);
  const int ok = stbi_write_png_to_func(append, &out, w, static_cast<int>(height), static_cast<int>(channels),
                                        samples.data(), w * static_cast<int>(channels));
  return checked(ok, std::move(out));
}

std::vector<std::uint8_t> bmp_bytes(const std::vector<std::uint8_t>& samples, std::size_t width, std::size_t height,
                                    std::size_t channels) {
  std::vector<std::uint8_t> out;
  const int ok = stbi_write_bmp_to_func(append, &out, static_cast<int>(width), static_cast<int>(height),
                                        static_cast<int>(channels), samples.data());
  return checked(ok, std::move(out));
}

std::vector<std::uint8_t> jpeg_bytes(const std::vector<std::uint8_t>& samples, std::size_t width, std::size_t height,
                                     std::size_t channels, int quality) {
  std::vector<std::uint8_t> out;
  const int ok = stbi_write_jpg_to_func(append, &out, static_cast<int>(width), static_cast<int>(height),
                                        static_cast<int>(channels), samples.data(), quality);
  return checked(ok, std::move(out));
}

void fix_png_crc(std::vector<std::uint8_t>& png, std::size_t offset) {
  const std::uint32_t length = std::uint32_t{png[offset]} << 24 | std::uint32_t{png[offset + 1]} << 16 |
                               std::uint32_t{png[offset + 2]} << 8 | png[offset + 3];
  const auto crc = static_cast<std::uint32_t>(crc32(0L, png.data() + offset + 4, 4 + length));
  for (std::size_t i = 0; i < 4; ++i) png[offset + 8 + length + i] = static_cast<std::uint8_t>(crc >> (24 - 8 * i));
}

std::vector<image::GrayImage> mnist_test_digits(std::size_t count) {
  const data::IdxArray images = data::read_idx(mnist_small_dir() / "t10k-images-idx3-ubyte.gz", data::IdxKind::kImages);
  std::vector<image::GrayImage> digits;
  for (std::size_t i = 0; i < count && i < images.items; ++i) {
    const auto first = images.values.begin() + static_cast<std::ptrdiff_t>(i * 784);
    digits.push_back(image::GrayImage{28, 28, std::vector<std::uint8_t>(first, first + 784)});
  }
  return digits;
}

image::GrayImage paper_digit(const image::GrayImage& digit, std::size_t scale, std::size_t left, std::size_t top,
                             std::size_t right, std::size_t bottom) {
  image::GrayImage paper;
  paper.width = left + digit.width * scale + right;
  paper.height = top + digit.height * scale + bottom;
  paper.pixels.assign(paper.width * paper.height, 255);
  for (std::size_t y = 0; y < digit.height * scale; ++y) {
    for (std::size_t x = 0; x < digit.width * scale; ++x) {
      paper.pixels[(top + y) * paper.width + left + x] =
          static_cast<std::uint8_t>(255 - digit.at(x / scale, y / scale));
    }
  }
  return paper;
}

model::FloatMlp small_mnist_model(const data::DataSplit& data) {
  train::TensorTrainConfig config = train::default_tensor_config("mnist");
  config.hidden = {32};
  config.epochs = 4;
  config.evaluate_each_epoch = false;
  return model::float_mlp_of(train::train_tensor(data, config).model);
}

}  // namespace seatorch::test
