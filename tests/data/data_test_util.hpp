// Helpers shared by the data tests: whole-file writes, gzip compression (zlib's deflate,
// independent of the reader under test), the committed MNIST subset's location, and the
// suite's ScratchDir (../scratch_dir.hpp) for the files they write.
#pragma once

#include "seatorch/data/registry.hpp"

#include "../scratch_dir.hpp"

#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::test {

using Bytes = std::vector<std::uint8_t>;

inline void write_file(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!file) throw std::runtime_error("cannot write " + path.string());
}

inline void write_text(const std::filesystem::path& path, std::string_view text) {
  write_file(path, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

inline Bytes read_file(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

// One gzip member holding `bytes` (zlib's deflate with the gzip wrapper).
inline Bytes gzip(std::span<const std::uint8_t> bytes) {
  z_stream z{};
  if (deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
  Bytes out(deflateBound(&z, static_cast<uLong>(bytes.size())) + 64);
  z.next_in = const_cast<Bytef*>(bytes.data());
  z.avail_in = static_cast<uInt>(bytes.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate failed");
  return out;
}

inline void put_be32(Bytes& out, std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(value >> shift));
}

// An IDX header: the magic number, then each dimension, all big-endian u32.
inline Bytes idx_header(std::uint32_t magic, std::initializer_list<std::uint32_t> dims) {
  Bytes out;
  put_be32(out, magic);
  for (const std::uint32_t dim : dims) put_be32(out, dim);
  return out;
}

// The committed subset: the first 2,000 training and 1,000 test images of MNIST, gzip IDX.
inline std::filesystem::path mnist_small_dir() {
  return std::filesystem::path(SEATORCH_SOURCE_DIR) / "data" / "mnist-small";
}

// The committed subset, loaded as `--dataset mnist --data-dir data/mnist-small` loads it.
inline data::DataSplit load_mnist_small() {
  data::DataOptions options;
  options.name = "mnist";
  options.data_dir = mnist_small_dir();
  return data::load_dataset(options);
}

}  // namespace seatorch::test
