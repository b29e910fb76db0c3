// The .hex writer and reader: round trip through a real file, the manifest, and the reader's
// one-line errors on malformed files.
#include "seatorch/npu/hex.hpp"

#include "../scratch_dir.hpp"
#include "npu_test_models.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/npu/image_builder.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace npu = seatorch::npu;

namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string parse_error(const std::string& text) {
  try {
    npu::parse_npu_hex(text, "m.hex");
  } catch (const seatorch::core::InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("npu hex file and manifest round trip", "[npu]") {
  seatorch::core::Rng rng(8);
  const npu::NpuImage image = npu::build_npu_image(npu::test::random_model(rng, {50, 20, 10}));
  const seatorch::test::ScratchDir dir;
  const std::filesystem::path hex = dir / "model.hex";
  npu::write_npu_hex(hex, image);

  const std::string text = read_text(hex);
  CHECK(text.rfind("// seatorch NPU image", 0) == 0);
  CHECK(text.find("\n@000000\n55504e53\n") != std::string::npos);
  CHECK(text.find("\n@400000\n") != std::string::npos);
  CHECK(text.find("\n@f00000\n") != std::string::npos);

  const npu::NpuImage back = npu::read_npu_hex(hex);
  CHECK(back.crc == image.crc);
  REQUIRE(back.sections.size() == image.sections.size());
  for (std::size_t s = 0; s < image.sections.size(); ++s) {
    INFO("section " << image.sections[s].name);
    CHECK(back.sections[s].name == image.sections[s].name);
    CHECK(back.sections[s].address == image.sections[s].address);
    CHECK(back.sections[s].words == image.sections[s].words);
  }
  CHECK(back.architecture() == "50-20-10");

  REQUIRE(npu::npu_manifest_path(hex) == dir / "model.manifest.json");
  const nlohmann::json manifest = nlohmann::json::parse(read_text(npu::npu_manifest_path(hex)));
  CHECK(manifest.at("crc32").get<std::uint32_t>() == image.crc);
  CHECK(manifest.at("architecture") == "50-20-10");
  CHECK(manifest.at("total_words").get<std::size_t>() == image.total_words());
  CHECK(manifest.at("sections").size() == 6);
  CHECK(manifest.at("layers").size() == 2);
  CHECK(manifest.at("layers")[0].at("macs").get<std::uint64_t>() == 1000);
}

TEST_CASE("npu hex reader rejects malformed files with the line number", "[npu]") {
  seatorch::core::Rng rng(9);
  const std::string good = npu::npu_hex_text(npu::build_npu_image(npu::test::random_model(rng, {6, 4})));
  REQUIRE(parse_error(good) == "no error");

  std::string text = good;
  text.replace(text.find("55504e53"), 8, "55504e5g");
  CHECK_THAT(parse_error(text), Catch::Contains("m.hex:4") && Catch::Contains("8 hex digits"));
  CHECK_THAT(parse_error("00000001\n"), Catch::Contains("m.hex:1") && Catch::Contains("before the first"));
  CHECK_THAT(parse_error("@1234567\n"), Catch::Contains("1 to 6 hex digits"));
  CHECK_THAT(parse_error("@000000\n@100000\n"), Catch::Contains("no words"));
  CHECK_THAT(parse_error(good.substr(0, good.rfind('@'))), Catch::Contains("truncated"));
  CHECK_THAT(parse_error(std::string(300, 'a')), Catch::Contains("longer than"));
  // Text quoted from the file is escaped and cut short: it can neither break the line nor
  // flood the terminal.
  CHECK_THAT(parse_error("@0\x1b[2J\n"), Catch::Contains("got '@0\\x1b[2J'"));
  const std::string long_word = parse_error("@0\n" + std::string(200, '0') + "\n");
  CHECK_THAT(long_word, Catch::Contains("m.hex:2") && Catch::EndsWith("...'"));
  text = good;
  const std::size_t crc_line = text.rfind('\n', text.size() - 2) + 1;
  text[crc_line] = text[crc_line] == '0' ? '1' : '0';
  CHECK_THAT(parse_error(text), Catch::Contains("corrupted"));
  CHECK_THROWS_WITH(npu::read_npu_hex("/nonexistent/model.hex"), Catch::Contains("seatorch export --hex"));
}
