// The .hex image's JSON manifest: writer, strict reader and the check against the image.
// The reader trusts nothing: every field is typed and bounded before it is used, unknown
// fields are refused (a typo must not pass as "absent"), and every value the writer derives
// from the tables (architecture, sizes, totals, MACs, weight rows, the CRC in hex) must
// equal what the tables give.
#include "seatorch/npu/manifest.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/core/json_fields.hpp"
#include "seatorch/io/read_file.hpp"
#include "seatorch/npu/hex.hpp"  // kHexMaxWords: a section the .hex reader would refuse is out of range

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace seatorch::npu {
namespace {

using nlohmann::json;

constexpr const char* kManifestFormat = "seatorch-npu-image";
constexpr std::uint32_t kMaxAddress = 0xFF'FFFF;  // a .hex address has at most 6 hex digits
constexpr std::uint64_t kMaxField16 = 0xFFFF;     // a descriptor's in/out fields
constexpr const char* kCrcSection = "crc";

std::string crc_hex(std::uint32_t crc) { return fmt::format("0x{:08x}", crc); }

// Messages name the manifest file and call its root "the manifest".
core::JsonSource manifest_source(std::string_view source) { return {source, "the manifest", ""}; }

NpuManifestSection parse_section(const json& value, std::string_view source, std::size_t k) {
  const core::JsonFields f(value, manifest_source(source), fmt::format("sections[{}]", k),
                           {"name", "address", "words"});
  NpuManifestSection s;
  s.name = f.string("name", kManifestMaxNameBytes);
  s.address = static_cast<std::uint32_t>(f.unsigned_integer("address", 0, kMaxAddress));
  s.words = f.unsigned_integer("words", 1, kHexMaxWords);
  return s;
}

NpuLayerInfo parse_layer(const json& value, std::string_view source, std::size_t k, std::size_t lanes) {
  const core::JsonFields f(value, manifest_source(source), fmt::format("layers[{}]", k),
                           {"in", "out", "relu", "input_zero_point", "weight_zero_point", "output_zero_point", "w_base",
                            "weight_rows", "row_base", "macs"});
  NpuLayerInfo l;
  l.in = f.unsigned_integer("in", 1, kMaxField16);
  l.out = f.unsigned_integer("out", 1, kMaxField16);
  l.relu = f.boolean("relu");
  l.input_zero_point = static_cast<std::int32_t>(f.signed_integer("input_zero_point", -128, 127));
  l.weight_zero_point = static_cast<std::int32_t>(f.signed_integer("weight_zero_point", -128, 127));
  l.output_zero_point = static_cast<std::int32_t>(f.signed_integer("output_zero_point", -128, 127));
  l.w_base = f.unsigned_integer("w_base", 0, kHexMaxWords);
  l.row_base = f.unsigned_integer("row_base", 0, kHexMaxWords);
  l.weight_rows = f.unsigned_integer("weight_rows", 1, std::numeric_limits<std::uint32_t>::max());
  f.expect("weight_rows", npu_weight_rows(l.in, l.out, lanes),
           fmt::format("ceil(out / lanes) * in with lanes {} gives", lanes));
  f.expect("macs", l.macs(), "in * out gives");
  return l;
}

// One difference between a manifest and an image, for the mismatch message.
template <typename T>
void compare(std::vector<std::string>& differences, const std::string& what, const T& manifest, const T& image) {
  if (!(manifest == image)) differences.push_back(fmt::format("{}: manifest {}, image {}", what, manifest, image));
}

}  // namespace

std::size_t NpuManifest::total_words() const {
  std::size_t n = 0;
  for (const NpuManifestSection& s : sections) n += s.words;
  return n;
}

NpuManifest npu_manifest_of(const NpuImage& image) {
  NpuManifest m;
  m.format_version = kFormatVersion;
  m.target = image.target.name;
  m.lanes = image.lanes();
  m.crc = image.crc;
  for (const NpuSection& s : image.sections) m.sections.push_back({s.name, s.address, s.words.size()});
  m.layers = image.layers;
  return m;
}

nlohmann::json npu_manifest_json(const NpuManifest& m) {
  json sections = json::array();
  for (const NpuManifestSection& s : m.sections) {
    sections.push_back({{"name", s.name}, {"address", s.address}, {"words", s.words}});
  }
  sections.push_back({{"name", kCrcSection}, {"address", region_base(kRegionCrc)}, {"words", 1}});
  json layers = json::array();
  for (const NpuLayerInfo& l : m.layers) {
    layers.push_back({{"in", l.in},
                      {"out", l.out},
                      {"relu", l.relu},
                      {"input_zero_point", l.input_zero_point},
                      {"weight_zero_point", l.weight_zero_point},
                      {"output_zero_point", l.output_zero_point},
                      {"w_base", l.w_base},
                      {"weight_rows", l.weight_rows},
                      {"row_base", l.row_base},
                      {"macs", l.macs()}});
  }
  return {{"format", kManifestFormat},
          {"format_version", m.format_version},
          {"target", m.target},
          {"lanes", m.lanes},
          {"architecture", npu_architecture(m.layers)},
          {"input_size", m.layers.empty() ? 0 : m.layers.front().in},
          {"output_size", m.layers.empty() ? 0 : m.layers.back().out},
          {"total_words", m.total_words()},
          {"macs", npu_macs(m.layers)},
          {"crc32", m.crc},
          {"crc32_hex", crc_hex(m.crc)},
          {"sections", sections},
          {"layers", layers}};
}

nlohmann::json npu_manifest(const NpuImage& image) { return npu_manifest_json(npu_manifest_of(image)); }

std::filesystem::path npu_manifest_path(const std::filesystem::path& hex_path) {
  std::filesystem::path p = hex_path;
  p.replace_extension(".manifest.json");
  return p;
}

NpuManifest parse_npu_manifest(std::string_view text, std::string_view source) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e999
    throw core::input_error("{}: not valid JSON ({})", source, core::printable(e.what(), 160));
  }
  const core::JsonFields f(root, manifest_source(source), "",
                           {"format", "format_version", "target", "lanes", "architecture", "input_size", "output_size",
                            "total_words", "macs", "crc32", "crc32_hex", "sections", "layers"});
  if (f.string("format", kManifestMaxNameBytes) != kManifestFormat) {
    throw core::input_error("{}: 'format' is {}, expected '{}'; not an NPU image manifest", source,
                            core::describe_json(f.get("format")), kManifestFormat);
  }
  NpuManifest m;
  m.format_version = static_cast<std::uint32_t>(f.unsigned_integer("format_version", 1, kMaxField16));
  if (f.has("target")) {
    m.target = f.string("target", kManifestMaxNameBytes);
    const std::vector<std::string> names = npu_target_names();
    if (std::find(names.begin(), names.end(), m.target) == names.end()) {
      throw core::input_error("{}: 'target' is {}; this seatorch knows the targets {}", source,
                              core::describe_json(f.get("target")), fmt::join(names, ", "));
    }
  }
  m.lanes = f.unsigned_integer("lanes", 1, 0xFF);
  f.expect("lanes", npu_target(m.target).limits.lanes, fmt::format("the {} target has", m.target));
  m.crc = static_cast<std::uint32_t>(f.unsigned_integer("crc32", 0, std::numeric_limits<std::uint32_t>::max()));
  f.expect("crc32_hex", crc_hex(m.crc), "'crc32' gives");

  const json& sections = f.array("sections", 1, kManifestMaxSections);
  for (std::size_t k = 0; k + 1 < sections.size(); ++k) m.sections.push_back(parse_section(sections[k], source, k));
  const NpuManifestSection crc = parse_section(sections.back(), source, sections.size() - 1);
  if (crc != NpuManifestSection{kCrcSection, region_base(kRegionCrc), 1}) {
    throw core::input_error(
        "{}: the last section must be {{\"name\": \"{}\", \"address\": {}, \"words\": 1}} (the image "
        "CRC at @{:06x}), got '{}' at {} with {} words",
        source, kCrcSection, region_base(kRegionCrc), region_base(kRegionCrc), core::printable(crc.name), crc.address,
        crc.words);
  }

  const json& layers = f.array("layers", 1, kManifestMaxLayers);
  for (std::size_t k = 0; k < layers.size(); ++k) {
    m.layers.push_back(parse_layer(layers[k], source, k, m.lanes));
    if (k > 0 && m.layers[k].in != m.layers[k - 1].out) {
      throw core::input_error("{}: layers[{}].in is {} but layers[{}].out is {}; the layers must chain", source, k,
                              m.layers[k].in, k - 1, m.layers[k - 1].out);
    }
  }
  f.expect("architecture", npu_architecture(m.layers), "the layers give");
  f.expect("input_size", m.layers.front().in, "the layers give");
  f.expect("output_size", m.layers.back().out, "the layers give");
  f.expect("total_words", m.total_words(), "the sections give");
  f.expect("macs", npu_macs(m.layers), "the layers give");
  return m;
}

NpuManifest read_npu_manifest(const std::filesystem::path& path) {
  const std::vector<std::uint8_t> bytes =
      io::read_file(path, kManifestMaxFileBytes, "an NPU image manifest (written by `seatorch export --hex`)");
  return parse_npu_manifest(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path.string());
}

void check_npu_manifest(const NpuManifest& manifest, const NpuImage& image, std::string_view manifest_source,
                        std::string_view hex_source) {
  const NpuManifest expected = npu_manifest_of(image);
  std::vector<std::string> differences;
  compare(differences, "format version", manifest.format_version, expected.format_version);
  compare(differences, "target", core::printable(manifest.target), expected.target);
  compare(differences, "lanes", manifest.lanes, expected.lanes);
  compare(differences, "architecture", npu_architecture(manifest.layers), npu_architecture(expected.layers));
  compare(differences, "CRC-32", crc_hex(manifest.crc), crc_hex(expected.crc));
  compare(differences, "sections", manifest.sections.size(), expected.sections.size());
  for (std::size_t k = 0; k < std::min(manifest.sections.size(), expected.sections.size()); ++k) {
    const NpuManifestSection& a = manifest.sections[k];
    const NpuManifestSection& b = expected.sections[k];
    compare(differences, fmt::format("section {} name", k), core::printable(a.name), b.name);
    compare(differences, fmt::format("section {} address", b.name), fmt::format("@{:06x}", a.address),
            fmt::format("@{:06x}", b.address));
    compare(differences, fmt::format("section {} words", b.name), a.words, b.words);
  }
  for (std::size_t k = 0; k < std::min(manifest.layers.size(), expected.layers.size()); ++k) {
    const NpuLayerInfo& a = manifest.layers[k];
    const NpuLayerInfo& b = expected.layers[k];
    const auto what = [k](const char* field) { return fmt::format("layer {} {}", k, field); };
    compare(differences, what("relu"), a.relu, b.relu);
    compare(differences, what("input zero-point"), a.input_zero_point, b.input_zero_point);
    compare(differences, what("weight zero-point"), a.weight_zero_point, b.weight_zero_point);
    compare(differences, what("output zero-point"), a.output_zero_point, b.output_zero_point);
    compare(differences, what("w_base"), a.w_base, b.w_base);
    compare(differences, what("row_base"), a.row_base, b.row_base);
  }
  if (differences.empty()) return;
  // The architecture comparison covers the layer count and every in/out; weight_rows and
  // MACs follow from them (the reader checked).
  constexpr std::size_t kShown = 4;
  std::string listed = differences.front();
  for (std::size_t k = 1; k < std::min(kShown, differences.size()); ++k) listed += "; " + differences[k];
  if (differences.size() > kShown) listed += fmt::format("; and {} more", differences.size() - kShown);
  throw core::input_error(
      "{} does not describe {} ({}); the manifest is stale or edited: re-run `seatorch export --hex` to "
      "write both again, or delete the manifest",
      manifest_source, hex_source, listed);
}

}  // namespace seatorch::npu
