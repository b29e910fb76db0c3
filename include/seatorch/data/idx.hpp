// The IDX format of MNIST and Fashion-MNIST, as distributed: unsigned-byte image files
// (magic 0x00000803: count, rows, cols) and label files (magic 0x00000801: count), raw or
// gzip-compressed (detected by content, see data_file.hpp).
//
// A file is validated completely before anything is allocated from its header: the magic
// number, the number of dimensions, each dimension against the limits below, and the
// length, which must match the header exactly (no truncation, no trailing bytes). Every
// failure is one InputError naming the file. Deliberately not supported: element types
// other than unsigned bytes (MNIST uses no others) and writing IDX files.
#pragma once

#include "seatorch/data/dataset.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

namespace seatorch::data {

// Limits on what a header may claim (MNIST has 60,000 items of 28x28).
inline constexpr std::size_t kIdxMaxItems = 10'000'000;
inline constexpr std::size_t kIdxMaxSide = 4096;  // rows and columns of one image

enum class IdxKind {
  kLabels,  // magic 0x00000801: one byte per item
  kImages,  // magic 0x00000803: rows x cols bytes per item
};

struct IdxArray {
  std::size_t items = 0;
  std::size_t rows = 1;              // 1 for labels
  std::size_t cols = 1;              // 1 for labels
  std::vector<std::uint8_t> values;  // (items, rows, cols), row-major
};

// Parses an uncompressed IDX file's bytes; `name` is the file for messages. Throws
// InputError for anything but a well-formed file of `kind` within the limits. The values are
// the bytes' own buffer, the header cut off in place.
IdxArray parse_idx(std::vector<std::uint8_t> bytes, IdxKind kind, std::string_view name);

// Reads and parses the IDX file at `path`, raw or gzip.
IdxArray read_idx(const std::filesystem::path& path, IdxKind kind);

// A data set from an image file and its label file: features are pixel / 255 (floats in
// [0, 1], rows*cols per sample), labels must be below `classes`. Throws InputError when
// the two files disagree on the count or a label is out of range.
Dataset load_idx_dataset(const std::filesystem::path& images, const std::filesystem::path& labels, std::size_t classes);

}  // namespace seatorch::data
