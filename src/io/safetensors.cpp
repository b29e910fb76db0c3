// safetensors reading and writing; the format is described in the header.
#include "seatorch/io/safetensors.hpp"

#include "seatorch/core/crc32.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/io/atomic_file.hpp"
#include "seatorch/io/read_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <limits>
#include <tuple>

namespace seatorch::io {
namespace {

constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;  // the reference implementation's limit
constexpr core::DType kDTypes[] = {core::DType::kF32, core::DType::kI8, core::DType::kU8, core::DType::kI32};

// The reference implementation's dtype order (its enum: U8 < I8 < I32 < F32); it writes
// tensors by descending rank, which keeps every tensor aligned to its element size.
int reference_rank(core::DType t) {
  switch (t) {
    case core::DType::kU8:
      return 0;
    case core::DType::kI8:
      return 1;
    case core::DType::kI32:
      return 2;
    case core::DType::kF32:
      return 3;
  }
  return -1;
}

[[noreturn]] void invalid(std::string_view source, const std::string& problem) {
  throw core::input_error("{}: not a valid safetensors file: {}", source, problem);
}

// A JSON value for a message: scalars as written (cut short), containers by kind only.
// Never dump() a container from the file: dumping recurses, and a hostile header nests
// arrays a million deep (a stack overflow; see tests/io/safetensors_test.cpp).
std::string describe(const nlohmann::json& value) {
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return core::printable(value.dump());
}

// Quotes a tensor name for a message.
std::string quote_name(const std::string& name) { return fmt::format("'{}'", core::printable(name)); }

// The tensors in the order their bytes are stored: by descending reference rank, then by
// name (the map's order).
std::vector<const std::pair<const std::string, RawTensor>*> data_order(const SafetensorsFile& file) {
  std::vector<const std::pair<const std::string, RawTensor>*> order;
  for (const auto& entry : file.tensors) order.push_back(&entry);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return reference_rank(a->second.dtype) > reference_rank(b->second.dtype);
  });
  return order;
}

std::string crc_text(std::uint32_t crc) { return fmt::format("{:08x}", crc); }

// Checks the recorded checksum (when there is one) against the data section and removes it
// from the metadata.
void verify_checksum(SafetensorsFile& file, std::span<const std::uint8_t> data, std::string_view source) {
  const auto it = file.metadata.find(std::string(kDataChecksumKey));
  if (it == file.metadata.end()) return;
  const std::string& recorded = it->second;
  std::uint32_t value = 0;
  const auto [end, ec] = std::from_chars(recorded.data(), recorded.data() + recorded.size(), value, 16);
  if (recorded.size() != 8 || ec != std::errc() || end != recorded.data() + recorded.size() ||
      recorded != crc_text(value)) {
    invalid(source, fmt::format("metadata {} = '{}' is not 8 lowercase hex digits", kDataChecksumKey,
                                core::printable(recorded)));
  }
  const std::uint32_t actual = core::crc32(data);
  if (actual != value) {
    throw core::input_error(
        "{} is corrupted: checksum mismatch (the CRC-32 of its {} data bytes is {}, the header records "
        "{}); re-train or re-download it",
        source, data.size(), crc_text(actual), recorded);
  }
  file.metadata.erase(it);
}

// product(shape) * element size, or nullopt on overflow.
std::optional<std::size_t> byte_size(const std::vector<std::size_t>& shape, core::DType dtype) {
  std::size_t n = core::dtype_size(dtype);
  for (std::size_t d : shape) {
    if (d != 0 && n > std::numeric_limits<std::size_t>::max() / d) return std::nullopt;
    n *= d;
  }
  return n;
}

std::size_t json_size(const nlohmann::json& value, std::string_view source, const std::string& what) {
  if (!value.is_number_unsigned())
    invalid(source, fmt::format("{} must be a non-negative integer, got {}", what, describe(value)));
  const auto v = value.get<std::uint64_t>();
  if (v > std::numeric_limits<std::size_t>::max()) invalid(source, fmt::format("{} = {} is too large", what, v));
  return static_cast<std::size_t>(v);
}

struct Entry {
  std::string name;
  core::DType dtype;
  std::vector<std::size_t> shape;
  std::size_t begin = 0;
  std::size_t end = 0;
};

Entry parse_entry(const std::string& name, const nlohmann::json& info, std::string_view source) {
  const std::string what = "tensor " + quote_name(name);
  if (!info.is_object()) invalid(source, what + " is not a JSON object");
  for (const auto& [key, value] : info.items()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") {
      invalid(source,
              fmt::format("{} has an unknown field {} (expected dtype, shape, data_offsets)", what, quote_name(key)));
    }
  }
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (!info.contains(key)) invalid(source, fmt::format("{} has no '{}'", what, key));
  }
  Entry e{name, core::DType::kF32, {}, 0, 0};
  const nlohmann::json& dtype = info["dtype"];
  if (!dtype.is_string()) invalid(source, what + " has a dtype that is not a string");
  const auto parsed = parse_dtype(dtype.get<std::string>());
  if (!parsed) {
    invalid(source, fmt::format("{} has dtype {}; seatorch reads F32, I32, I8 and U8 only (convert the "
                                "tensor to one of those before saving)",
                                what, describe(dtype)));
  }
  e.dtype = *parsed;
  const nlohmann::json& shape = info["shape"];
  if (!shape.is_array()) invalid(source, what + " has a shape that is not an array");
  for (std::size_t i = 0; i < shape.size(); ++i)
    e.shape.push_back(json_size(shape[i], source, fmt::format("{} shape[{}]", what, i)));
  const nlohmann::json& offsets = info["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2) invalid(source, what + " needs data_offsets [begin, end]");
  e.begin = json_size(offsets[0], source, what + " data_offsets[0]");
  e.end = json_size(offsets[1], source, what + " data_offsets[1]");
  return e;
}

}  // namespace

std::size_t RawTensor::numel() const {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

std::optional<core::DType> parse_dtype(std::string_view name) {
  for (core::DType t : kDTypes) {
    if (core::dtype_name(t) == name) return t;
  }
  return std::nullopt;
}

void throw_dtype_mismatch(const RawTensor& tensor, core::DType expected, std::string_view what) {
  throw core::input_error("{} has dtype {}, expected {}", what, core::dtype_name(tensor.dtype),
                          core::dtype_name(expected));
}

namespace {

// The file's first part: the header's length (8 bytes, little-endian), then its JSON, padded
// with spaces to a multiple of 8. The tensors' bytes follow it in `order` (data_order).
std::vector<std::uint8_t> header_bytes(const SafetensorsFile& file,
                                       std::span<const std::pair<const std::string, RawTensor>* const> order) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!file.metadata.empty()) header["__metadata__"] = file.metadata;
  std::size_t offset = 0;
  for (const auto* entry : order) {
    const RawTensor& t = entry->second;
    const auto size = byte_size(t.shape, t.dtype);
    if (!size || *size != t.bytes.size()) {
      throw core::input_error("cannot save tensor {}: {} bytes do not match its shape and dtype {}",
                              quote_name(entry->first), t.bytes.size(), core::dtype_name(t.dtype));
    }
    nlohmann::ordered_json info;
    info["dtype"] = core::dtype_name(t.dtype);
    info["shape"] = t.shape;
    info["data_offsets"] = {offset, offset + t.bytes.size()};
    header[entry->first] = std::move(info);
    offset += t.bytes.size();
  }
  std::string json;
  try {
    json = header.dump();
  } catch (const nlohmann::json::exception& e) {
    throw core::input_error("cannot save a safetensors header: {} (names and metadata must be UTF-8)", e.what());
  }
  json.append((8 - json.size() % 8) % 8, ' ');

  std::vector<std::uint8_t> bytes(8 + json.size());
  const std::uint64_t n = json.size();
  for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(n >> (8 * i));
  std::memcpy(bytes.data() + 8, json.data(), json.size());
  return bytes;
}

}  // namespace

std::vector<std::uint8_t> serialize_safetensors(const SafetensorsFile& file) {
  const auto order = data_order(file);
  std::vector<std::uint8_t> bytes = header_bytes(file, order);
  std::size_t data = 0;
  for (const auto* entry : order) data += entry->second.bytes.size();
  bytes.reserve(bytes.size() + data);
  for (const auto* entry : order) bytes.insert(bytes.end(), entry->second.bytes.begin(), entry->second.bytes.end());
  return bytes;
}

SafetensorsFile with_data_checksum(SafetensorsFile file) {
  std::uint32_t crc = 0;
  for (const auto* entry : data_order(file)) crc = core::crc32(entry->second.bytes, crc);
  file.metadata[std::string(kDataChecksumKey)] = crc_text(crc);
  return file;
}

SafetensorsFile parse_safetensors(std::span<const std::uint8_t> bytes, std::string_view source) {
  if (bytes.size() < 8)
    invalid(source,
            fmt::format("the file has {} bytes, fewer than the 8-byte header length (truncated?)", bytes.size()));
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[static_cast<std::size_t>(i)];
  if (n > kMaxHeaderBytes) invalid(source, fmt::format("header length {} exceeds the 100 MB limit", n));
  if (n > bytes.size() - 8) {
    invalid(source,
            fmt::format("header length {} runs past the end of the {}-byte file (truncated?)", n, bytes.size()));
  }
  const auto header_begin = bytes.begin() + 8;
  const auto header_end = header_begin + static_cast<std::ptrdiff_t>(n);
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(header_begin, header_end);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    invalid(source, fmt::format("the header is not valid JSON ({})", core::printable(e.what(), 160)));
  }
  if (!header.is_object()) invalid(source, "the header is not a JSON object");

  SafetensorsFile file;
  std::vector<Entry> entries;
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) invalid(source, "__metadata__ is not a JSON object");
      for (const auto& [mkey, mvalue] : value.items()) {
        if (!mvalue.is_string())
          invalid(source, fmt::format("__metadata__ value of {} is not a string", quote_name(mkey)));
        file.metadata[mkey] = mvalue.get<std::string>();
      }
      continue;
    }
    entries.push_back(parse_entry(key, value, source));
  }

  const std::size_t data_size = bytes.size() - 8 - static_cast<std::size_t>(n);
  const auto last =
      std::max_element(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.end < b.end; });
  if (last != entries.end() && last->end > data_size) {
    throw core::input_error(
        "{} is truncated: tensor {} ends at data byte {}, but only {} data bytes follow the header; "
        "re-train or re-download it",
        source, quote_name(last->name), last->end, data_size);
  }
  for (const Entry& e : entries) {
    if (e.begin > e.end) {
      invalid(source, fmt::format("tensor {} has data_offsets [{}, {}] that end before they begin", quote_name(e.name),
                                  e.begin, e.end));
    }
    const auto size = byte_size(e.shape, e.dtype);
    if (!size || *size != e.end - e.begin) {
      invalid(source, fmt::format("tensor {} has {} data bytes, but shape [{}] of {} needs {}", quote_name(e.name),
                                  e.end - e.begin, fmt::join(e.shape, ", "), core::dtype_name(e.dtype),
                                  size ? fmt::to_string(*size) : "too many"));
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
  std::size_t cursor = 0;
  for (const Entry& e : entries) {
    if (e.begin < cursor) {
      invalid(source, fmt::format("tensor {} overlaps the tensor before it (offset {} < {})", quote_name(e.name),
                                  e.begin, cursor));
    }
    if (e.begin > cursor) {
      invalid(source, fmt::format("{} unused bytes before tensor {} (offset {})", e.begin - cursor, quote_name(e.name),
                                  e.begin));
    }
    cursor = e.end;
  }
  if (cursor != data_size) invalid(source, fmt::format("{} trailing bytes after the last tensor", data_size - cursor));

  const std::uint8_t* data = bytes.data() + 8 + n;
  verify_checksum(file, std::span(data, data_size), source);
  for (Entry& e : entries) {
    file.tensors[e.name] =
        RawTensor{e.dtype, std::move(e.shape), std::vector<std::uint8_t>(data + e.begin, data + e.end)};
  }
  return file;
}

// The header and each tensor's bytes written as they lie, not first copied into one buffer:
// the file's data is not held twice (the end of a training run, when its checkpoint is
// written, is the run's peak of memory).
void save_safetensors(const std::filesystem::path& path, SafetensorsFile file) {
  file = with_data_checksum(std::move(file));
  const auto order = data_order(file);
  const std::vector<std::uint8_t> header = header_bytes(file, order);
  std::vector<std::span<const std::uint8_t>> pieces{header};
  for (const auto* entry : order) pieces.emplace_back(entry->second.bytes);
  write_file_atomic(path, pieces);
}

SafetensorsFile load_safetensors(const std::filesystem::path& path) {
  return parse_safetensors(read_file(path, kMaxSafetensorsFileBytes, "a safetensors file"), path.string());
}

}  // namespace seatorch::io
