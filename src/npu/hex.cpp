// The .hex writer and its strict reader; the reader also checks the manifest beside the file.
#include "seatorch/npu/hex.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/io/atomic_file.hpp"
#include "seatorch/io/read_file.hpp"
#include "seatorch/npu/image_decode.hpp"

#include <fmt/format.h>

#include <charconv>
#include <optional>

namespace seatorch::npu {
namespace {

constexpr std::uintmax_t kHexMaxFileBytes = kHexMaxWords * 10 + (std::uintmax_t{1} << 20);

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Exactly `min_digits`..`max_digits` hex digits, nothing else.
std::optional<std::uint32_t> parse_hex(std::string_view s, std::size_t min_digits, std::size_t max_digits) {
  if (s.size() < min_digits || s.size() > max_digits) return std::nullopt;
  std::uint32_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, 16);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

}  // namespace

std::string npu_hex_text(const NpuImage& image) {
  std::string out;
  out += fmt::format("// seatorch NPU image (docs/NPU.md), format {}: {}, {} layers, target {}, lanes {}, {} words, "
                     "crc32 0x{:08x}\n",
                     kFormatVersion, image.architecture(), image.layers.size(), image.target.name, image.lanes(),
                     image.total_words(), image.crc);
  for (const NpuSection& s : image.sections) {
    out += fmt::format("// section {}: {} words at 0x{:06x}\n@{:06x}\n", s.name, s.words.size(), s.address, s.address);
    for (const std::uint32_t w : s.words) out += fmt::format("{:08x}\n", w);
  }
  out += fmt::format("// section crc: the image CRC-32, sent with LOAD_END (not loaded)\n@{:06x}\n{:08x}\n",
                     region_base(kRegionCrc), image.crc);
  return out;
}

void write_npu_hex(const std::filesystem::path& path, const NpuImage& image) {
  io::write_file_atomic(path, npu_hex_text(image));
  io::write_file_atomic(npu_manifest_path(path), npu_manifest(image).dump(2) + "\n");
}

NpuHexWords parse_npu_hex_words(std::string_view text, std::string_view source) {
  std::vector<NpuSection> sections;
  std::size_t words = 0;
  std::size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    if (line.size() > kHexMaxLineChars) {
      throw core::input_error("{}:{}: line longer than {} characters; not an NPU .hex file", source, line_no,
                              kHexMaxLineChars);
    }
    if (const std::size_t c = line.find("//"); c != std::string_view::npos) line = line.substr(0, c);
    line = trim(line);
    if (line.empty()) continue;
    if (line.front() == '@') {
      const std::optional<std::uint32_t> address = parse_hex(line.substr(1), 1, 6);
      if (!address) {
        throw core::input_error("{}:{}: expected '@' and a word address of 1 to 6 hex digits, got '{}'", source,
                                line_no, core::printable(line));
      }
      if (!sections.empty() && sections.back().words.empty()) {
        throw core::input_error("{}:{}: the section at @{:06x} has no words", source, line_no, sections.back().address);
      }
      sections.push_back({"", *address, {}});
      continue;
    }
    const std::optional<std::uint32_t> word = parse_hex(line, 8, 8);
    if (!word) {
      throw core::input_error("{}:{}: expected a word of 8 hex digits, got '{}'", source, line_no,
                              core::printable(line));
    }
    if (sections.empty()) {
      throw core::input_error("{}:{}: a word before the first '@address' line", source, line_no);
    }
    if (++words > kHexMaxWords) {
      throw core::input_error("{}:{}: more than {} words; no NPU image is that large", source, line_no, kHexMaxWords);
    }
    sections.back().words.push_back(*word);
  }
  if (sections.empty() || sections.back().address != region_base(kRegionCrc) || sections.back().words.size() != 1) {
    throw core::input_error("{}: the last section must be the one-word image CRC at @{:06x}; the file is truncated or "
                            "not an NPU image",
                            source, region_base(kRegionCrc));
  }
  const std::uint32_t crc = sections.back().words.front();
  sections.pop_back();
  return {std::move(sections), crc};
}

NpuImage parse_npu_hex(std::string_view text, std::string_view source, const NpuTarget& target) {
  NpuHexWords words = parse_npu_hex_words(text, source);
  return npu_image_from_sections(std::move(words.sections), words.crc, source, target);
}

NpuImage read_npu_hex(const std::filesystem::path& path, std::string_view target) {
  const std::vector<std::uint8_t> bytes =
      io::read_file(path, kHexMaxFileBytes, "an NPU image (write one with `seatorch export --hex`)");
  NpuHexWords words =
      parse_npu_hex_words(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path.string());
  const std::filesystem::path manifest = npu_manifest_path(path);
  std::error_code ec;
  if (std::filesystem::symlink_status(manifest, ec).type() == std::filesystem::file_type::not_found) {
    return npu_image_from_sections(std::move(words.sections), words.crc, path.string(),
                                   target.empty() ? default_npu_target() : npu_target(target));
  }
  // Anything else at that path is read (read_file names a directory or an unreadable file).
  NpuManifest described;
  try {
    described = read_npu_manifest(manifest);
  } catch (const core::InputError& e) {
    throw core::input_error(
        "{} (the manifest beside {}; re-run `seatorch export --hex` to write both again, or delete it)", e.what(),
        path.string());
  }
  if (!target.empty() && target != described.target) {
    const NpuTarget& wanted = npu_target(target);  // an unknown name is its own error
    throw core::input_error(
        "{} was exported for the {} target (its manifest {} says so), not for the {} target; run it on "
        "the {} target or export the model again for {}",
        path.string(), described.target, manifest.string(), wanted.name, described.target, wanted.name);
  }
  NpuImage image =
      npu_image_from_sections(std::move(words.sections), words.crc, path.string(), npu_target(described.target));
  check_npu_manifest(described, image, manifest.string(), path.string());
  return image;
}

}  // namespace seatorch::npu
