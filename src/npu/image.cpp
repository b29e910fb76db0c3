// The image's vocabulary: its sections' names and addresses, and what its layer table gives.
#include "seatorch/npu/image.hpp"

#include "seatorch/core/architecture.hpp"

namespace seatorch::npu {
namespace {

struct SectionLayout {
  std::string_view name;
  std::uint32_t region;
};

// Indexed by NpuSection::Id.
constexpr std::array<SectionLayout, kNpuSectionCount> kSections = {{
    {"header", kRegionDmem},
    {"bias", kRegionBias},
    {"multiplier", kRegionMult},
    {"shift", kRegionShift},
    {"weights", kRegionWmem},
}};

}  // namespace

std::string_view npu_section_name(NpuSection::Id id) { return kSections.at(section_index(id)).name; }

std::uint32_t npu_section_address(NpuSection::Id id) { return region_base(kSections.at(section_index(id)).region); }

const NpuSection& npu_section(const std::vector<NpuSection>& sections, NpuSection::Id id) {
  return sections.at(section_index(id));
}

std::size_t NpuImage::total_words() const {
  std::size_t n = 0;
  for (const NpuSection& s : sections) n += s.words.size();
  return n;
}

std::uint64_t NpuImage::macs() const { return npu_macs(layers); }

std::string NpuImage::architecture() const { return npu_architecture(layers); }

std::uint64_t npu_macs(const std::vector<NpuLayerInfo>& layers) {
  std::uint64_t n = 0;
  for (const NpuLayerInfo& l : layers) n += l.macs();
  return n;
}

std::string npu_architecture(const std::vector<NpuLayerInfo>& layers) {
  if (layers.empty()) return "";
  std::vector<std::size_t> sizes{layers.front().in};
  for (const NpuLayerInfo& l : layers) sizes.push_back(l.out);
  return core::architecture_name(sizes);
}

std::vector<std::uint8_t> npu_image_bytes(const std::vector<NpuSection>& sections) {
  std::vector<std::uint8_t> bytes;
  for (const NpuSection& s : sections) {
    for (const std::uint32_t w : s.words) {
      for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<std::uint8_t>(w >> (8 * b)));
    }
  }
  return bytes;
}

}  // namespace seatorch::npu
