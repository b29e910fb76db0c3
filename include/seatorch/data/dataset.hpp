// An in-memory labelled data set: the one shape every loader produces and every engine
// consumes. Features are float32, row-major; labels are class indices.
//
// Deliberately plain: no lazy loading, no augmentation. MNIST's 60,000 x 784 floats are
// 188 MB, which fits every machine seatorch targets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace seatorch::data {

struct Dataset {
  std::size_t features = 0;      // values per sample
  std::size_t classes = 0;       // labels are in [0, classes)
  std::vector<float> x;          // (size(), features)
  std::vector<std::int32_t> y;   // (size())

  [[nodiscard]] std::size_t size() const { return y.size(); }
  [[nodiscard]] std::span<const float> sample(std::size_t i) const {
    return std::span<const float>(x).subspan(i * features, features);
  }
};

// A named data set with its training and test parts.
struct DataSplit {
  std::string name;
  Dataset train;
  Dataset test;
};

}  // namespace seatorch::data
