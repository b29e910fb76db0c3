// safetensors: golden bytes derived by hand from the format's specification (and the
// reference implementation's own test vectors), round trips, every kind of malformed file
// rejected with one InputError naming the file, and the data checksum: every flipped bit and
// every truncation of a saved file refused.
#include "seatorch/io/safetensors.hpp"

#include "../scratch_dir.hpp"
#include "seatorch/core/crc32.hpp"
#include "seatorch/core/error.hpp"

#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

namespace io = seatorch::io;

namespace {

// 8-byte little-endian header length + header + data.
std::vector<std::uint8_t> file_of(const std::string& header, const std::vector<std::uint8_t>& data) {
  std::vector<std::uint8_t> out;
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(header.size() >> (8 * i)));
  for (char c : header) out.push_back(static_cast<std::uint8_t>(c));
  for (std::uint8_t b : data) out.push_back(b);
  return out;
}

// Parsing `bytes` throws an InputError whose message names the file and contains `needle`.
void require_invalid(const std::vector<std::uint8_t>& bytes, const std::string& needle) {
  try {
    io::parse_safetensors(bytes, "bad.safetensors");
    FAIL("no error for a file that should mention: " << needle);
  } catch (const seatorch::core::InputError& e) {
    const std::string message = e.what();
    INFO("message: " << message);
    CHECK(message.find("bad.safetensors") != std::string::npos);
    CHECK(message.find(needle) != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
  }
}

const std::string kTinyHeader = R"({"t":{"dtype":"I32","shape":[2],"data_offsets":[0,8]}})";

}  // namespace

TEST_CASE("safetensors writer produces the bytes the specification gives", "[io]") {
  // Tensors go by descending dtype (F32 before I8) then name; the header JSON is compact,
  // "__metadata__" first, each entry dtype/shape/data_offsets, padded with spaces to 8k.
  io::SafetensorsFile file;
  file.metadata["format"] = "pt";
  const std::vector<std::int8_t> b{1, -2, 3};
  const std::vector<float> a{1.0f, -2.0f};
  file.tensors["b"] = io::make_tensor<std::int8_t>({3}, b);
  file.tensors["a"] = io::make_tensor<float>({2}, a);
  const std::string header = R"({"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                             R"("b":{"dtype":"I8","shape":[3],"data_offsets":[8,11]}})";
  REQUIRE(header.size() == 138);
  std::vector<std::uint8_t> expected{0x90, 0, 0, 0, 0, 0, 0, 0};  // 138 + 6 spaces = 144
  for (char c : header + "      ") expected.push_back(static_cast<std::uint8_t>(c));
  for (std::uint8_t v : {0x00, 0x00, 0x80, 0x3F, 0x00, 0x00, 0x00, 0xC0, 0x01, 0xFE, 0x03}) expected.push_back(v);
  const std::vector<std::uint8_t> actual = io::serialize_safetensors(file);
  REQUIRE(actual.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("byte " << i << ": " << int{actual[i]} << " vs expected " << int{expected[i]});
    REQUIRE(actual[i] == expected[i]);
  }
}

TEST_CASE("safetensors writer matches the reference implementation's test vectors", "[io]") {
  // "attn.0" F32 [1,2,3] = 0..5: a 64-byte header needs no padding.
  io::SafetensorsFile file;
  const std::vector<float> values{0, 1, 2, 3, 4, 5};
  file.tensors["attn.0"] = io::make_tensor<float>({1, 2, 3}, values);
  std::vector<std::uint8_t> data(24);
  std::memcpy(data.data(), values.data(), 24);
  CHECK(io::serialize_safetensors(file) ==
        file_of(R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})", data));
  // "attn0" F32 [1,1,2,3]: 65 bytes padded with 7 spaces to 72.
  file.tensors.clear();
  file.tensors["attn0"] = io::make_tensor<float>({1, 1, 2, 3}, values);
  CHECK(io::serialize_safetensors(file) ==
        file_of(R"({"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}})" + std::string(7, ' '), data));
  // Empty, and metadata only.
  CHECK(io::serialize_safetensors({}) == file_of("{}      ", {}));
  io::SafetensorsFile meta;
  meta.metadata["framework"] = "pt";
  CHECK(io::serialize_safetensors(meta) == file_of(R"({"__metadata__":{"framework":"pt"}})" + std::string(5, ' '), {}));
}

TEST_CASE("safetensors round trip keeps every dtype shape value and metadata", "[io]") {
  io::SafetensorsFile file;
  file.metadata = {{"format", "seatorch-test"}, {"note", "\"quoted\" \\ unicode \xc3\xa9"}};
  const std::vector<float> f{1.5f, -0.0f, 3e-38f, 7.0f, -1e30f, 2.0f};
  const std::vector<std::int32_t> i32{-2147483647 - 1, 2147483647, 0};
  const std::vector<std::int8_t> i8{-128, 127, 0, 5, -7};
  const std::vector<std::uint8_t> u8{255, 0, 128};
  const std::int32_t scalar = -42;
  file.tensors["w.f32"] = io::make_tensor<float>({2, 3}, f);
  file.tensors["z.i32"] = io::make_tensor<std::int32_t>({3}, i32);
  file.tensors["a.i8"] = io::make_tensor<std::int8_t>({5}, i8);
  file.tensors["u8"] = io::make_tensor<std::uint8_t>({1, 3}, u8);
  file.tensors["scalar"] = io::make_tensor<std::int32_t>({}, std::span(&scalar, 1));
  file.tensors["empty"] = io::make_tensor<float>({0, 4}, std::span<const float>());

  const auto bytes = io::serialize_safetensors(file);
  const std::uint64_t header = bytes[0] | (std::uint64_t{bytes[1]} << 8);
  CHECK(header % 8 == 0);
  const io::SafetensorsFile back = io::parse_safetensors(bytes, "mem");
  CHECK(back.metadata == file.metadata);
  REQUIRE(back.tensors.size() == file.tensors.size());
  for (const auto& [name, t] : file.tensors) {
    INFO("tensor " << name);
    const io::RawTensor& u = back.tensors.at(name);
    CHECK(u.dtype == t.dtype);
    CHECK(u.shape == t.shape);
    CHECK(u.bytes == t.bytes);
  }
  CHECK(io::tensor_values<float>(back.tensors.at("w.f32"), "w") == f);
  CHECK(io::tensor_values<std::int32_t>(back.tensors.at("scalar"), "s") == std::vector<std::int32_t>{-42});
  CHECK_THROWS_AS(io::tensor_values<float>(back.tensors.at("a.i8"), "a.i8"), seatorch::core::InputError);
  // Every tensor starts at a multiple of its element size.
  const std::size_t data_start = 8 + header;
  CHECK(data_start % 8 == 0);
  CHECK(io::serialize_safetensors(back) == bytes);
}

TEST_CASE("safetensors files save atomically and load back", "[io]") {
  const seatorch::test::ScratchDir dir;
  const auto path = dir / "sub" / "x.safetensors";
  io::SafetensorsFile file;
  file.metadata["kind"] = "test";
  const std::vector<std::int8_t> v{1, 2, 3};
  const std::vector<float> w{0.5f, -2.0f};
  file.tensors["v"] = io::make_tensor<std::int8_t>({3}, v);
  file.tensors["w"] = io::make_tensor<float>({2}, w);  // written before v: the reference's order by dtype
  io::save_safetensors(path, file);
  // The file is written in pieces (header, then each tensor); the bytes are those the
  // golden-tested serializer gives the checksummed file whole.
  std::ifstream in(path, std::ios::binary);
  const std::vector<std::uint8_t> written{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  CHECK(written == io::serialize_safetensors(io::with_data_checksum(file)));
  const io::SafetensorsFile back = io::load_safetensors(path);
  CHECK(back.metadata == file.metadata);
  CHECK(back.tensors.at("v").bytes == file.tensors.at("v").bytes);
  CHECK(back.tensors.at("w").bytes == file.tensors.at("w").bytes);
  CHECK_THROWS_WITH(io::load_safetensors(dir / "missing.safetensors"), Catch::Contains("missing.safetensors"));
}

TEST_CASE("malformed safetensors files are each one clear InputError", "[io]") {
  const std::vector<std::uint8_t> data8(8, 0);
  SECTION("shorter than the length field") { require_invalid({1, 0, 0}, "fewer than the 8-byte"); }
  SECTION("truncated data") {
    auto bytes = file_of(kTinyHeader, data8);
    bytes.pop_back();
    require_invalid(bytes, "is truncated: tensor 't' ends at data byte 8, but only 7 data bytes follow");
  }
  SECTION("truncated header") {
    auto bytes = file_of(kTinyHeader, {});
    bytes.resize(20);
    require_invalid(bytes, "runs past the end");
  }
  SECTION("header length beyond 100 MB") {
    std::vector<std::uint8_t> bytes{0, 0, 0, 0, 0, 0, 0, 1};
    require_invalid(bytes, "exceeds the 100 MB limit");
  }
  SECTION("a number too large for a double") {
    // Regression (found by tests/fuzz/safetensors_fuzz): nlohmann throws out_of_range, not
    // parse_error, for such a number; it escaped as an internal error (exit code 2).
    require_invalid(file_of(R"({"t":{"dtype":"U8","shape":[1e99999],"data_offsets":[0,1]}})", {0}), "not valid JSON");
  }
  SECTION("bad JSON") { require_invalid(file_of(R"({"t":{"dtype":"I32",)", data8), "not valid JSON"); }
  SECTION("not an object") { require_invalid(file_of("[1,2]   ", {}), "not a JSON object"); }
  SECTION("unknown dtype") {
    require_invalid(file_of(R"({"t":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})", data8), "\"F64\"");
  }
  SECTION("missing field") {
    require_invalid(file_of(R"({"t":{"dtype":"I32","shape":[2]}})", {}), "no 'data_offsets'");
  }
  SECTION("unknown field") {
    require_invalid(file_of(R"({"t":{"dtype":"I32","shape":[2],"data_offsets":[0,8],"x":1}})", data8),
                    "unknown field 'x'");
  }
  SECTION("negative shape") {
    require_invalid(file_of(R"({"t":{"dtype":"I32","shape":[-2],"data_offsets":[0,8]}})", data8),
                    "non-negative integer");
  }
  SECTION("offsets out of bounds") {
    require_invalid(file_of(R"({"t":{"dtype":"I32","shape":[2],"data_offsets":[0,16]}})", data8), "only 8 data bytes");
  }
  SECTION("size does not match the shape") {
    require_invalid(file_of(R"({"t":{"dtype":"I32","shape":[3],"data_offsets":[0,8]}})", data8), "needs 12");
  }
  SECTION("overlapping tensors") {
    require_invalid(file_of(R"({"a":{"dtype":"I32","shape":[2],"data_offsets":[0,8]},)"
                            R"("b":{"dtype":"I32","shape":[1],"data_offsets":[4,8]}})",
                            data8),
                    "overlaps");
  }
  SECTION("gap before a tensor") {
    require_invalid(file_of(R"({"t":{"dtype":"I32","shape":[1],"data_offsets":[4,8]}})", data8), "unused bytes");
  }
  SECTION("trailing garbage") { require_invalid(file_of(kTinyHeader, std::vector<std::uint8_t>(9, 0)), "trailing"); }
  SECTION("metadata that is not strings") {
    require_invalid(file_of(R"({"__metadata__":{"a":1}})", {}), "not a string");
  }
  SECTION("shape overflow") {
    require_invalid(file_of(R"({"t":{"dtype":"I32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", data8),
                    "too many");
  }
  SECTION("offsets that end before they begin") {
    require_invalid(file_of(R"({"t":{"dtype":"I32","shape":[2],"data_offsets":[8,0]}})", data8),
                    "end before they begin");
  }
  SECTION("a valid file parses") {
    CHECK(io::parse_safetensors(file_of(kTinyHeader, data8), "ok").tensors.size() == 1);
  }
}

TEST_CASE("safetensors reader accepts any tensor order in the header", "[io]") {
  // As another writer might lay it out: names in alphabetical order, an I8 tensor before an
  // F32 one, offsets in header order (so the F32 data is not 4-byte aligned).
  const std::string header = R"({"a":{"dtype":"I8","shape":[1],"data_offsets":[0,1]},)"
                             R"("b":{"dtype":"F32","shape":[1],"data_offsets":[1,5]}})";
  const io::SafetensorsFile file =
      io::parse_safetensors(file_of(header, {0xF9, 0x00, 0x00, 0x80, 0x3F}), "other.safetensors");
  CHECK(io::tensor_values<std::int8_t>(file.tensors.at("a"), "a") == std::vector<std::int8_t>{-7});
  CHECK(io::tensor_values<float>(file.tensors.at("b"), "b") == std::vector<float>{1.0f});
}

namespace {

std::vector<std::uint8_t> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// A small file with two dtypes, saved (so with its checksum) in `dir`.
std::filesystem::path saved_file(const seatorch::test::ScratchDir& dir) {
  io::SafetensorsFile file;
  file.metadata["format"] = "pt";
  const std::vector<float> w{1.0f, -2.0f, 0.5f, 8.0f};
  const std::vector<std::int8_t> q{3, -4};
  file.tensors["0.weight"] = io::make_tensor<float>({2, 2}, w);
  file.tensors["q"] = io::make_tensor<std::int8_t>({2}, q);
  const auto path = dir / "model.safetensors";
  io::save_safetensors(path, file);
  return path;
}

// The message of the InputError that loading `path` throws ("" when none).
std::string load_error(const std::filesystem::path& path) {
  try {
    io::load_safetensors(path);
  } catch (const seatorch::core::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("saved safetensors files carry a CRC-32 of their data that loading verifies and consumes", "[io]") {
  const seatorch::test::ScratchDir dir;
  const auto path = saved_file(dir);
  const std::vector<std::uint8_t> bytes = read_bytes(path);
  const std::string text(bytes.begin(), bytes.end());
  // Data section: 16 bytes of F32 then 2 of I8; zlib's crc32 of them, computed independently below.
  const std::vector<std::uint8_t> data(bytes.end() - 18, bytes.end());
  const std::uint32_t crc = seatorch::core::crc32(data);
  CHECK(text.find(fmt::format(R"("data_crc32":"{:08x}")", crc)) != std::string::npos);
  CHECK(seatorch::core::crc32(std::vector<std::uint8_t>{'1', '2', '3', '4', '5', '6', '7', '8', '9'}) ==
        0xCBF43926u);  // the CRC-32 check value

  const io::SafetensorsFile back = io::load_safetensors(path);
  CHECK(back.metadata == std::map<std::string, std::string>{{"format", "pt"}});  // the key is consumed
  CHECK(back.tensors.size() == 2);
}

TEST_CASE("a corrupted or truncated checkpoint is refused with a clear message", "[io]") {
  const seatorch::test::ScratchDir dir;
  const auto path = saved_file(dir);
  const std::vector<std::uint8_t> good = read_bytes(path);
  const std::size_t data_start = good.size() - 18;

  SECTION("every single-bit flip in the data section") {
    for (std::size_t at = data_start; at < good.size(); ++at) {
      std::vector<std::uint8_t> bad = good;
      bad[at] ^= static_cast<std::uint8_t>(1u << (at % 8));
      write_bytes(path, bad);
      const std::string message = load_error(path);
      INFO("flipped byte " << at << ": " << message);
      CHECK(message.find(path.string() + " is corrupted: checksum mismatch") != std::string::npos);
      CHECK(message.find("re-train or re-download it") != std::string::npos);
    }
  }
  SECTION("truncated anywhere in the data section") {
    for (std::size_t size = data_start; size < good.size(); ++size) {
      write_bytes(path, std::vector<std::uint8_t>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(size)));
      const std::string message = load_error(path);
      INFO("truncated to " << size << " bytes: " << message);
      CHECK(message.find(path.string() + " is truncated") != std::string::npos);
      CHECK(message.find("re-train or re-download it") != std::string::npos);
    }
  }
  SECTION("truncated inside the header") {
    write_bytes(path, std::vector<std::uint8_t>(good.begin(), good.begin() + 40));
    CHECK_THAT(load_error(path), Catch::Contains("runs past the end") && Catch::Contains("truncated"));
  }
  SECTION("a checksum that is not 8 hex digits") {
    std::string text(good.begin(), good.end());
    const std::size_t at = text.find("\"data_crc32\":\"") + 14;
    text[at] = 'Z';
    write_bytes(path, std::vector<std::uint8_t>(text.begin(), text.end()));
    CHECK_THAT(load_error(path), Catch::Contains("data_crc32 = 'Z") && Catch::Contains("8 lowercase hex digits"));
  }
}

TEST_CASE("files without a checksum such as PyTorch writes still load", "[io]") {
  // serialize_safetensors adds nothing: the bytes of another writer. A flipped data byte
  // goes unnoticed there, which is why seatorch's own files carry the checksum.
  io::SafetensorsFile file;
  const std::vector<float> w{1.0f, 2.0f};
  file.tensors["w"] = io::make_tensor<float>({2}, w);
  std::vector<std::uint8_t> bytes = io::serialize_safetensors(file);
  bytes.back() ^= 0x40;
  const io::SafetensorsFile back = io::parse_safetensors(bytes, "torch.safetensors");
  CHECK(back.metadata.empty());
  CHECK(io::tensor_values<float>(back.tensors.at("w"), "w")[1] != 2.0f);
}

TEST_CASE("a header nested 100000 arrays deep is an error not a stack overflow", "[io]") {
  // Regression: the error message used to dump() the shape value, which recurses once per
  // nesting level: at this depth (a 200 kB header) that overflowed the 8 MB stack and
  // crashed. Now containers are described by kind only.
  constexpr std::size_t kDepth = 100'000;
  const std::string header = R"({"t":{"dtype":"U8","shape":[)" + std::string(kDepth, '[') + std::string(kDepth, ']') +
                             R"(],"data_offsets":[0,0]}})";
  require_invalid(file_of(header, {}), "shape[0] must be a non-negative integer, got an array");
}

TEST_CASE("names from the file are escaped and cut short in messages", "[io]") {
  const std::string header = R"({")" + std::string("evil\\n\\u001b[31m") + std::string(500, 'x') +
                             R"(":{"dtype":"I32","shape":[3],"data_offsets":[0,8]}})";
  try {
    io::parse_safetensors(file_of(header, std::vector<std::uint8_t>(8, 0)), "bad.safetensors");
    FAIL("no error");
  } catch (const seatorch::core::InputError& e) {
    const std::string message = e.what();
    INFO(message);
    CHECK(message.find("'evil\\x0a\\x1b[31mxxx") != std::string::npos);
    CHECK(message.find('\n') == std::string::npos);
    CHECK(message.find('\x1b') == std::string::npos);
    CHECK(message.size() < 300);
  }
}

TEST_CASE("load_safetensors refuses what is not a regular file or is too large before reading it", "[io]") {
  const seatorch::test::ScratchDir dir;
  CHECK_THAT(load_error(dir.path()), Catch::Contains("not a regular file"));
  const auto fifo = dir / "fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(load_error(fifo), Catch::Contains("not a regular file"));  // opening it would block forever
  const auto huge = dir / "huge.safetensors";
  { std::ofstream touch(huge); }
  std::filesystem::resize_file(huge, io::kMaxSafetensorsFileBytes + 1);  // sparse: no disk used
  CHECK_THAT(load_error(huge), Catch::Contains("is more than 1 GiB, the limit for a safetensors file"));
}
