// safetensors reading and writing; the format is described in the header.
#include "seatorch/io/safetensors.hpp"

#include "seatorch/error.hpp"
#include "seatorch/io/atomic_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <limits>
#include <tuple>

namespace seatorch::io {
namespace {

constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;  // the reference implementation's limit
constexpr DType kDTypes[] = {DType::kF32, DType::kI8, DType::kU8, DType::kI32};

// The reference implementation's dtype order (its enum: U8 < I8 < I32 < F32); it writes
// tensors by descending rank, which keeps every tensor aligned to its element size.
int reference_rank(DType t) {
  switch (t) {
    case DType::kU8:
      return 0;
    case DType::kI8:
      return 1;
    case DType::kI32:
      return 2;
    case DType::kF32:
      return 3;
  }
  return -1;
}

[[noreturn]] void invalid(std::string_view source, const std::string& problem) {
  throw input_error("{}: not a valid safetensors file: {}", source, problem);
}

// product(shape) * element size, or nullopt on overflow.
std::optional<std::size_t> byte_size(const std::vector<std::size_t>& shape, DType dtype) {
  std::size_t n = dtype_size(dtype);
  for (std::size_t d : shape) {
    if (d != 0 && n > std::numeric_limits<std::size_t>::max() / d) return std::nullopt;
    n *= d;
  }
  return n;
}

std::size_t json_size(const nlohmann::json& value, std::string_view source, const std::string& what) {
  if (!value.is_number_unsigned()) invalid(source, fmt::format("{} must be a non-negative integer, got {}", what, value.dump()));
  const auto v = value.get<std::uint64_t>();
  if (v > std::numeric_limits<std::size_t>::max()) invalid(source, fmt::format("{} = {} is too large", what, v));
  return static_cast<std::size_t>(v);
}

struct Entry {
  std::string name;
  DType dtype;
  std::vector<std::size_t> shape;
  std::size_t begin = 0;
  std::size_t end = 0;
};

Entry parse_entry(const std::string& name, const nlohmann::json& info, std::string_view source) {
  const std::string what = "tensor '" + name + "'";
  if (!info.is_object()) invalid(source, what + " is not a JSON object");
  for (const auto& [key, value] : info.items()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets") {
      invalid(source, fmt::format("{} has an unknown field '{}' (expected dtype, shape, data_offsets)", what, key));
    }
  }
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (!info.contains(key)) invalid(source, fmt::format("{} has no '{}'", what, key));
  }
  Entry e{name, DType::kF32, {}, 0, 0};
  const nlohmann::json& dtype = info["dtype"];
  if (!dtype.is_string()) invalid(source, what + " has a dtype that is not a string");
  const auto parsed = parse_dtype(dtype.get<std::string>());
  if (!parsed) {
    invalid(source, fmt::format("{} has dtype {}; seatorch reads F32, I32, I8 and U8 only (convert the "
                                "tensor to one of those before saving)", what, dtype.dump()));
  }
  e.dtype = *parsed;
  const nlohmann::json& shape = info["shape"];
  if (!shape.is_array()) invalid(source, what + " has a shape that is not an array");
  for (std::size_t i = 0; i < shape.size(); ++i) e.shape.push_back(json_size(shape[i], source, fmt::format("{} shape[{}]", what, i)));
  const nlohmann::json& offsets = info["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2) invalid(source, what + " needs data_offsets [begin, end]");
  e.begin = json_size(offsets[0], source, what + " data_offsets[0]");
  e.end = json_size(offsets[1], source, what + " data_offsets[1]");
  return e;
}

std::vector<std::uint8_t> read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error("cannot open {}: {}; check the path", path.string(), std::strerror(errno));
  std::vector<std::uint8_t> bytes;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  in.seekg(0, std::ios::beg);
  if (size < 0) throw input_error("cannot read {}: not a regular file", path.string());
  bytes.resize(static_cast<std::size_t>(size));
  if (!in.read(reinterpret_cast<char*>(bytes.data()), size)) {
    throw input_error("cannot read {}: read failed after {} of {} bytes", path.string(), in.gcount(), size);
  }
  return bytes;
}

}  // namespace

std::size_t RawTensor::numel() const {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType t : kDTypes) {
    if (dtype_name(t) == name) return t;
  }
  return std::nullopt;
}

void throw_dtype_mismatch(const RawTensor& tensor, DType expected, std::string_view what) {
  throw input_error("{} has dtype {}, expected {}", what, dtype_name(tensor.dtype), dtype_name(expected));
}

std::vector<std::uint8_t> serialize_safetensors(const SafetensorsFile& file) {
  std::vector<const std::pair<const std::string, RawTensor>*> order;
  for (const auto& entry : file.tensors) order.push_back(&entry);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return reference_rank(a->second.dtype) > reference_rank(b->second.dtype);  // then by name: the map's order
  });

  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!file.metadata.empty()) header["__metadata__"] = file.metadata;
  std::size_t offset = 0;
  for (const auto* entry : order) {
    const RawTensor& t = entry->second;
    const auto size = byte_size(t.shape, t.dtype);
    if (!size || *size != t.bytes.size()) {
      throw input_error("cannot save tensor '{}': {} bytes do not match its shape and dtype {}", entry->first,
                        t.bytes.size(), dtype_name(t.dtype));
    }
    nlohmann::ordered_json info;
    info["dtype"] = dtype_name(t.dtype);
    info["shape"] = t.shape;
    info["data_offsets"] = {offset, offset + t.bytes.size()};
    header[entry->first] = std::move(info);
    offset += t.bytes.size();
  }
  std::string json;
  try {
    json = header.dump();
  } catch (const nlohmann::json::exception& e) {
    throw input_error("cannot save a safetensors header: {} (names and metadata must be UTF-8)", e.what());
  }
  json.append((8 - json.size() % 8) % 8, ' ');

  std::vector<std::uint8_t> bytes(8 + json.size());
  const std::uint64_t n = json.size();
  for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(n >> (8 * i));
  std::memcpy(bytes.data() + 8, json.data(), json.size());
  bytes.reserve(bytes.size() + offset);
  for (const auto* entry : order) bytes.insert(bytes.end(), entry->second.bytes.begin(), entry->second.bytes.end());
  return bytes;
}

SafetensorsFile parse_safetensors(std::span<const std::uint8_t> bytes, std::string_view source) {
  if (bytes.size() < 8) invalid(source, fmt::format("the file has {} bytes, fewer than the 8-byte header length (truncated?)", bytes.size()));
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[static_cast<std::size_t>(i)];
  if (n > kMaxHeaderBytes) invalid(source, fmt::format("header length {} exceeds the 100 MB limit", n));
  if (n > bytes.size() - 8) {
    invalid(source, fmt::format("header length {} runs past the end of the {}-byte file (truncated?)", n, bytes.size()));
  }
  const auto header_begin = bytes.begin() + 8;
  const auto header_end = header_begin + static_cast<std::ptrdiff_t>(n);
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(header_begin, header_end);
  } catch (const nlohmann::json::parse_error& e) {
    invalid(source, fmt::format("the header is not valid JSON ({})", e.what()));
  }
  if (!header.is_object()) invalid(source, "the header is not a JSON object");

  SafetensorsFile file;
  std::vector<Entry> entries;
  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) invalid(source, "__metadata__ is not a JSON object");
      for (const auto& [mkey, mvalue] : value.items()) {
        if (!mvalue.is_string()) invalid(source, fmt::format("__metadata__ value of '{}' is not a string", mkey));
        file.metadata[mkey] = mvalue.get<std::string>();
      }
      continue;
    }
    entries.push_back(parse_entry(key, value, source));
  }

  const std::size_t data_size = bytes.size() - 8 - static_cast<std::size_t>(n);
  for (const Entry& e : entries) {
    if (e.begin > e.end || e.end > data_size) {
      invalid(source, fmt::format("tensor '{}' has data_offsets [{}, {}] outside the {} data bytes (truncated?)", e.name,
                                  e.begin, e.end, data_size));
    }
    const auto size = byte_size(e.shape, e.dtype);
    if (!size || *size != e.end - e.begin) {
      invalid(source, fmt::format("tensor '{}' has {} data bytes, but shape [{}] of {} needs {}", e.name, e.end - e.begin,
                                  fmt::join(e.shape, ", "), dtype_name(e.dtype), size ? fmt::to_string(*size) : "too many"));
    }
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
  std::size_t cursor = 0;
  for (const Entry& e : entries) {
    if (e.begin < cursor) invalid(source, fmt::format("tensor '{}' overlaps the tensor before it (offset {} < {})", e.name, e.begin, cursor));
    if (e.begin > cursor) invalid(source, fmt::format("{} unused bytes before tensor '{}' (offset {})", e.begin - cursor, e.name, e.begin));
    cursor = e.end;
  }
  if (cursor != data_size) invalid(source, fmt::format("{} trailing bytes after the last tensor", data_size - cursor));

  const std::uint8_t* data = bytes.data() + 8 + n;
  for (Entry& e : entries) {
    file.tensors[e.name] = RawTensor{e.dtype, std::move(e.shape), std::vector<std::uint8_t>(data + e.begin, data + e.end)};
  }
  return file;
}

void save_safetensors(const std::filesystem::path& path, const SafetensorsFile& file) {
  write_file_atomic(path, serialize_safetensors(file));
}

SafetensorsFile load_safetensors(const std::filesystem::path& path) {
  return parse_safetensors(read_whole_file(path), path.string());
}

}  // namespace seatorch::io
