// An in-memory labelled data set: the one shape every loader produces and every engine
// consumes. Labels are class indices; features come in one of two encodings:
//   - image data sets (IDX: MNIST, Fashion-MNIST) keep the file's pixel bytes, 0..255;
//   - real-valued data sets (the toy generators, CSV) keep float32 values.
// Bytes are what the int8 model and the Mini NPU read, and a quarter of the memory (MNIST's
// 60,000 x 784 images are 47 MB as bytes, 188 MB as floats). A float model sees a pixel p
// as kernels::pixel_value(p) = p / 255, derived where it is needed (copy_features) and
// nowhere else.
//
// Deliberately plain: no lazy loading, no augmentation, no normalisation beyond p / 255.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::data {

struct Dataset {
  std::size_t features = 0;          // values per sample
  std::size_t classes = 0;           // labels are in [0, classes)
  std::vector<std::uint8_t> pixels;  // (size(), features) for image data; empty otherwise
  std::vector<float> x;              // (size(), features) for real-valued data; empty for image data
  std::vector<std::int32_t> y;       // (size())

  [[nodiscard]] std::size_t size() const { return y.size(); }
  // True when the features are pixel bytes (an image data set).
  [[nodiscard]] bool is_image() const { return !pixels.empty(); }

  // Samples [first, first + count) as floats into out (count, features): pixel_value of their
  // bytes, or their values. Callers reuse `out` from batch to batch.
  void copy_features(std::size_t first, std::size_t count, std::span<float> out) const;
  // Asks the CPU to start loading sample i's features into cache: a batch's rows are random
  // rows of a set larger than the caches, and each one otherwise stalls on memory.
  void prefetch_features(std::size_t i) const;
  // Asks only for the cache line where sample i's features start (see detail::gather_batch).
  void prefetch_first_line(std::size_t i) const;
  // Sample i's features as stored (pixel bytes or floats), as bytes.
  [[nodiscard]] std::span<const std::byte> feature_bytes(std::size_t i) const;
  // Sample i's pixel bytes, (features); empty for real-valued data.
  [[nodiscard]] std::span<const std::uint8_t> pixels_of(std::size_t i) const;

  // Samples [first, first + count) as a data set of their own, in the same encoding.
  [[nodiscard]] Dataset slice(std::size_t first, std::size_t count) const;
};

// The pixel bytes of an image data set, (size(), features); throws InputError naming `user`
// ("the int8 model", "the Mini NPU") when the data set has real-valued features instead.
std::span<const std::uint8_t> image_pixels(const Dataset& data, std::string_view user);

// A named data set with its training and test parts.
struct DataSplit {
  std::string name;
  Dataset train;
  Dataset test;
};

}  // namespace seatorch::data
