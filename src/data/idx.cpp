// IDX parsing and validation; the data-set assembly of MNIST-like image/label pairs.
#include "seatorch/data/idx.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/data/data_file.hpp"

namespace seatorch::data {
namespace {

struct KindInfo {
  std::uint32_t magic;
  std::size_t dims;
  const char* what;
};

KindInfo info(IdxKind kind) {
  return kind == IdxKind::kImages ? KindInfo{0x00000803, 3, "an IDX image file"}
                                  : KindInfo{0x00000801, 1, "an IDX label file"};
}

std::uint32_t read_be32(std::span<const std::uint8_t> bytes, std::size_t at) {
  return static_cast<std::uint32_t>(bytes[at]) << 24 | static_cast<std::uint32_t>(bytes[at + 1]) << 16 |
         static_cast<std::uint32_t>(bytes[at + 2]) << 8 | static_cast<std::uint32_t>(bytes[at + 3]);
}

void check_dimension(std::string_view name, const char* what, std::uint32_t value, std::size_t limit) {
  if (value == 0 || value > limit) {
    throw core::input_error("{}: the header claims {} {}, expected 1 to {} (a corrupt header?)", name, value, what,
                            limit);
  }
}

}  // namespace

IdxArray parse_idx(std::vector<std::uint8_t> bytes, IdxKind kind, std::string_view name) {
  const KindInfo expected = info(kind);
  if (bytes.empty()) throw core::input_error("{}: the file is empty, expected {}", name, expected.what);
  if (bytes.size() < 4) {
    throw core::input_error("{}: {} bytes is too short for {} (truncated?)", name, bytes.size(), expected.what);
  }
  const std::uint32_t magic = read_be32(bytes, 0);
  if (magic != expected.magic) {
    throw core::input_error("{}: magic number 0x{:08x}, expected 0x{:08x} ({}); is this the right file?", name, magic,
                            expected.magic, expected.what);
  }
  const std::size_t header = 4 + 4 * expected.dims;
  if (bytes.size() < header) {
    throw core::input_error("{}: {} bytes is shorter than the {}-byte header of {} (truncated?)", name, bytes.size(),
                            header, expected.what);
  }

  IdxArray array;
  const std::uint32_t items = read_be32(bytes, 4);
  check_dimension(name, "items", items, kIdxMaxItems);
  array.items = items;
  if (kind == IdxKind::kImages) {
    const std::uint32_t rows = read_be32(bytes, 8);
    const std::uint32_t cols = read_be32(bytes, 12);
    check_dimension(name, "rows per image", rows, kIdxMaxSide);
    check_dimension(name, "columns per image", cols, kIdxMaxSide);
    array.rows = rows;
    array.cols = cols;
  }
  // At most 1e7 * 4096 * 4096 < 2^48: no overflow.
  const std::size_t payload = array.items * array.rows * array.cols;
  const std::size_t total = header + payload;
  if (bytes.size() < total) {
    throw core::input_error("{}: truncated: {} bytes, but the header promises {} ({} items of {}x{}); "
                            "re-download the file",
                            name, bytes.size(), total, array.items, array.rows, array.cols);
  }
  if (bytes.size() > total) {
    throw core::input_error("{}: {} unexpected bytes after the {} items the header promises "
                            "(expected exactly {} bytes); is this the right file?",
                            name, bytes.size() - total, array.items, total);
  }
  // In place: MNIST's training images are 47 MB, and a copy would double the load's peak.
  bytes.erase(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(header));
  array.values = std::move(bytes);
  return array;
}

IdxArray read_idx(const std::filesystem::path& path, IdxKind kind) {
  return parse_idx(read_data_file(path), kind, path.string());
}

Dataset load_idx_dataset(const std::filesystem::path& images, const std::filesystem::path& labels,
                         std::size_t classes) {
  IdxArray image_array = read_idx(images, IdxKind::kImages);
  const IdxArray label_array = read_idx(labels, IdxKind::kLabels);
  if (image_array.items != label_array.items) {
    throw core::input_error("{} holds {} images but {} holds {} labels; the two files must belong together",
                            images.string(), image_array.items, labels.string(), label_array.items);
  }
  Dataset data;
  data.features = image_array.rows * image_array.cols;
  data.classes = classes;
  data.y.resize(label_array.items);
  for (std::size_t i = 0; i < label_array.items; ++i) {
    const std::uint8_t label = label_array.values[i];
    if (label >= classes) {
      throw core::input_error("{}: label {} of item {} is not a class in 0..{}", labels.string(), label, i,
                              classes - 1);
    }
    data.y[i] = label;
  }
  data.pixels = std::move(image_array.values);
  return data;
}

}  // namespace seatorch::data
