// The C++ constants mirror rtl/npu_pkg.sv: every localparam of the package is parsed from
// the source and compared with its `k`-prefixed twin in constants.hpp.
#include "seatorch/npu/constants.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <map>
#include <regex>
#include <string>

namespace npu = seatorch::npu;

namespace {

// "16", "32'h5550_4E53", "8'd0", "4'hF" -> value
std::uint64_t parse_sv_number(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
  const std::size_t tick = text.find('\'');
  if (tick == std::string::npos) return std::stoull(text, nullptr, 10);
  const char base = static_cast<char>(std::tolower(text.at(tick + 1)));
  const int radix = base == 'h' ? 16 : base == 'd' ? 10 : base == 'b' ? 2 : 0;
  REQUIRE(radix != 0);
  return std::stoull(text.substr(tick + 2), nullptr, radix);
}

std::map<std::string, std::uint64_t> parse_package(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  const std::regex localparam(R"(^\s*localparam\s+(?:int\s+unsigned|logic\s*\[\d+:0\])\s+(\w+)\s*=\s*([^;]+);)");
  std::map<std::string, std::uint64_t> values;
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, localparam)) values[m[1]] = parse_sv_number(m[2]);
  }
  return values;
}

}  // namespace

TEST_CASE("npu constants.hpp mirrors every localparam of rtl/npu_pkg.sv", "[npu]") {
  const std::map<std::string, std::uint64_t> cpp = {
      {"Lanes", npu::kLanes},
      {"WmemDepth", npu::kWmemDepth},
      {"RowDepth", npu::kRowDepth},
      {"ActDepth", npu::kActDepth},
      {"DmemDepth", npu::kDmemDepth},
      {"FbufDepth", npu::kFbufDepth},
      {"Ice40Lanes", npu::kIce40Lanes},
      {"Ice40WmemDepth", npu::kIce40WmemDepth},
      {"Ice40RowDepth", npu::kIce40RowDepth},
      {"Ice40ActDepth", npu::kIce40ActDepth},
      {"Ice40DmemDepth", npu::kIce40DmemDepth},
      {"Ice40FbufDepth", npu::kIce40FbufDepth},
      {"MaxLayers", npu::kMaxLayers},
      {"MinClksPerBit", npu::kMinClksPerBit},
      {"RegionCrc", npu::kRegionCrc},
      {"MaxChunkBytes", npu::kMaxChunkBytes},
      {"ChunkHeaderBytes", npu::kChunkHeaderBytes},
      {"MaxPayload", npu::kMaxPayload},
      {"TimeoutBits", npu::kTimeoutBits},
      {"ImageMagic", npu::kImageMagic},
      {"FormatVersion", npu::kFormatVersion},
      {"HeaderWords", npu::kHeaderWords},
      {"DescWords", npu::kDescWords},
      {"RegionLsb", npu::kRegionLsb},
      {"RegionDmem", npu::kRegionDmem},
      {"RegionBias", npu::kRegionBias},
      {"RegionMult", npu::kRegionMult},
      {"RegionShift", npu::kRegionShift},
      {"RegionWmem", npu::kRegionWmem},
      {"Sync0", npu::kSync0},
      {"Sync1", npu::kSync1},
      {"CmdStatus", npu::kCmdStatus},
      {"CmdEcho", npu::kCmdEcho},
      {"CmdLoadBegin", npu::kCmdLoadBegin},
      {"CmdLoadChunk", npu::kCmdLoadChunk},
      {"CmdLoadEnd", npu::kCmdLoadEnd},
      {"CmdInfer", npu::kCmdInfer},
      {"RspAck", npu::kRspAck},
      {"RspNak", npu::kRspNak},
      {"StatusBytes", npu::kStatusBytes},
      {"ResultBytes", npu::kResultBytes},
      {"CrcPoly", npu::kCrcPoly},
      {"ErrNone", npu::kErrNone},
      {"ErrCrc", npu::kErrCrc},
      {"ErrFraming", npu::kErrFraming},
      {"ErrLength", npu::kErrLength},
      {"ErrTimeout", npu::kErrTimeout},
      {"ErrCommand", npu::kErrCommand},
      {"ErrState", npu::kErrState},
      {"ErrSequence", npu::kErrSequence},
      {"ErrAddress", npu::kErrAddress},
      {"ErrNoImage", npu::kErrNoImage},
      {"ErrImageCrc", npu::kErrImageCrc},
      {"ErrImageHeader", npu::kErrImageHeader},
  };
  const std::map<std::string, std::uint64_t> sv = parse_package(SEATORCH_SOURCE_DIR "/rtl/npu_pkg.sv");
  REQUIRE(sv.size() >= 40);
  for (const auto& [name, value] : sv) {
    INFO("npu_pkg::" << name << " = " << value);
    REQUIRE(cpp.count(name) == 1);
    CHECK(cpp.at(name) == value);
  }
  for (const auto& [name, value] : cpp) {
    INFO("k" << name << " has no localparam in npu_pkg.sv");
    CHECK(sv.count(name) == 1);
  }
}
