// safetensors files (https://huggingface.co/docs/safetensors): the checkpoint format of
// seatorch, readable by PyTorch's `safetensors.torch.load_file` and vice versa.
//
// Layout: an 8-byte little-endian header length N, N bytes of JSON
//   {"__metadata__":{"key":"value",...},"name":{"dtype":"F32","shape":[2,3],"data_offsets":[b,e]},...}
// padded with spaces to a multiple of 8, then the tensors' bytes (little-endian, row-major),
// back to back in the order of the header, offsets relative to the end of the header.
// The writer reproduces the reference implementation byte for byte: compact JSON, tensors
// sorted by descending dtype (F32, I32, I8, U8, the reference's order) then by name, so
// every tensor starts at a multiple of its element size.
// The reader checks everything and reports the first problem as one InputError naming the
// file: file size (at most kMaxSafetensorsFileBytes), header length (8 <= ... <= 100 MB and
// inside the file), JSON, every entry's dtype, shape and data_offsets, offsets that tile
// the data exactly (no overlap, gap or trailing bytes) with sizes = product(shape) * dtype
// size. Names and values quoted in messages are cut and escaped (seatorch::printable).
//
// Integrity: every file save_safetensors writes carries "data_crc32" in its metadata, the
// CRC-32 (core/crc32.hpp, 8 lowercase hex digits) of the whole data section. The parser
// verifies it when present and refuses a mismatch as corruption; files without it
// (PyTorch's) are accepted. The key is consumed: parse never returns it and save recomputes it, so it
// describes the bytes, not the content. The header itself is covered by the checks above.
// Deliberately not here: dtypes seatorch does not use (F16, BF16, F64, I64, ...; reading
// them is an error naming the dtype), memory mapping, and any meaning of the tensors.
#pragma once

#include "seatorch/core/crc32.hpp"
#include "seatorch/core/dtype.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::io {

// One stored tensor, independent of any tensor engine.
struct RawTensor {
  core::DType dtype = core::DType::kF32;
  std::vector<std::size_t> shape;   // empty = a scalar (one element)
  std::vector<std::uint8_t> bytes;  // (numel() * dtype_size(dtype)), little-endian, row-major

  [[nodiscard]] std::size_t numel() const;
};

// The "__metadata__" object: string keys to string values.
using Metadata = std::map<std::string, std::string>;

struct SafetensorsFile {
  Metadata metadata;
  std::map<std::string, RawTensor> tensors;  // by name
};

// The most bytes load_safetensors reads from one file (models are megabytes).
inline constexpr std::size_t kMaxSafetensorsFileBytes = std::size_t{1} << 30;
// The metadata key of the data section's CRC-32.
inline constexpr std::string_view kDataChecksumKey = "data_crc32";

// The parsed dtype of a safetensors dtype string; nullopt for any string seatorch does not use.
std::optional<core::DType> parse_dtype(std::string_view name);

// Typed views: make_tensor copies values in, tensor_values copies them out and throws
// InputError (naming `what`, e.g. "model.safetensors: tensor 0.weight") when the dtype differs.
template <typename T>
RawTensor make_tensor(std::vector<std::size_t> shape, std::span<const T> values);
template <typename T>
std::vector<T> tensor_values(const RawTensor& tensor, std::string_view what);

// The file's bytes, exactly as the reference implementation writes them (with exactly
// file.metadata: no checksum is added here).
std::vector<std::uint8_t> serialize_safetensors(const SafetensorsFile& file);
// The same file with metadata "data_crc32" set to its data section's checksum.
SafetensorsFile with_data_checksum(SafetensorsFile file);
// Parses and validates, verifies and removes "data_crc32" when present; `source` names the
// file in error messages.
SafetensorsFile parse_safetensors(std::span<const std::uint8_t> bytes, std::string_view source);

// File versions: saving adds the checksum and is atomic (io/atomic_file.hpp), the same bytes
// as serialize_safetensors(with_data_checksum(file)); loading reads at most
// kMaxSafetensorsFileBytes from a regular file.
void save_safetensors(const std::filesystem::path& path, SafetensorsFile file);
SafetensorsFile load_safetensors(const std::filesystem::path& path);

// ---- template definitions -------------------------------------------------------------

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; seatorch copies it as is");

template <typename T>
RawTensor make_tensor(std::vector<std::size_t> shape, std::span<const T> values) {
  RawTensor t{core::DTypeOf<T>::value, std::move(shape), std::vector<std::uint8_t>(values.size_bytes())};
  if (!values.empty()) std::memcpy(t.bytes.data(), values.data(), values.size_bytes());
  return t;
}

[[noreturn]] void throw_dtype_mismatch(const RawTensor& tensor, core::DType expected, std::string_view what);

template <typename T>
std::vector<T> tensor_values(const RawTensor& tensor, std::string_view what) {
  if (tensor.dtype != core::DTypeOf<T>::value) throw_dtype_mismatch(tensor, core::DTypeOf<T>::value, what);
  std::vector<T> values(tensor.bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), tensor.bytes.data(), values.size() * sizeof(T));
  return values;
}

}  // namespace seatorch::io
