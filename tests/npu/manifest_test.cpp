// The .hex image's manifest: its JSON against the image it describes, the strict reader's
// one-line errors on malformed manifests, the check against a .hex image, and read_npu_hex()
// checking the manifest beside the file.
#include "seatorch/npu/manifest.hpp"

#include "../scratch_dir.hpp"
#include "npu_test_models.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/npu/hex.hpp"
#include "seatorch/npu/image_builder.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

namespace npu = seatorch::npu;
using nlohmann::json;

namespace {

npu::NpuImage test_image(std::uint64_t seed, const std::vector<std::size_t>& sizes,
                         const npu::NpuTarget& target = npu::default_npu_target()) {
  seatorch::core::Rng rng(seed);
  return npu::build_npu_image(npu::test::random_model(rng, sizes), target);
}

// The reader's message for `text`, "accepted" when it parses.
std::string parse_error(const std::string& text) {
  try {
    npu::parse_npu_manifest(text, "m.manifest.json");
  } catch (const seatorch::core::InputError& e) {
    return e.what();
  }
  return "accepted";
}

std::string check_error(const npu::NpuManifest& manifest, const npu::NpuImage& image) {
  try {
    npu::check_npu_manifest(manifest, image, "m.manifest.json", "m.hex");
  } catch (const seatorch::core::InputError& e) {
    return e.what();
  }
  return "accepted";
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

struct Malformed {
  const char* what;
  std::function<void(json&)> change;
  const char* expected;  // a fragment of the message
};

}  // namespace

TEST_CASE("npu manifest describes its image and round trips", "[npu]") {
  const npu::NpuImage image = test_image(21, {40, 20, 10});
  const json j = npu::npu_manifest(image);
  CHECK(j.at("architecture") == image.architecture());
  CHECK(j.at("input_size").get<std::size_t>() == 40);
  CHECK(j.at("output_size").get<std::size_t>() == 10);
  CHECK(j.at("total_words").get<std::size_t>() == image.total_words());
  CHECK(j.at("macs").get<std::uint64_t>() == 40 * 20 + 20 * 10);
  CHECK(j.at("crc32").get<std::uint32_t>() == image.crc);
  REQUIRE(j.at("sections").size() == image.sections.size() + 1);
  for (std::size_t s = 0; s < image.sections.size(); ++s) {
    INFO("section " << image.sections[s].name);
    CHECK(j.at("sections")[s].at("address").get<std::uint32_t>() == image.sections[s].address);
    CHECK(j.at("sections")[s].at("words").get<std::size_t>() == image.sections[s].words.size());
  }
  CHECK(j.at("sections").back().at("name") == "crc");

  const npu::NpuManifest parsed = npu::parse_npu_manifest(j.dump(2), "m.manifest.json");
  CHECK(parsed == npu::npu_manifest_of(image));
  CHECK(parsed.layers == image.layers);
  CHECK(npu::npu_manifest_json(parsed) == j);
  CHECK(check_error(parsed, image) == "accepted");
  CHECK(j.at("target") == "default");

  // A manifest written before there were targets describes a default-target image.
  json untargeted = j;
  untargeted.erase("target");
  CHECK(npu::parse_npu_manifest(untargeted.dump(), "m.manifest.json") == parsed);

  const npu::NpuImage ice = test_image(21, {40, 20, 10}, npu::npu_target("icebreaker"));
  const json ice_json = npu::npu_manifest(ice);
  CHECK(ice_json.at("target") == "icebreaker");
  CHECK(ice_json.at("lanes") == 8);
  const npu::NpuManifest ice_parsed = npu::parse_npu_manifest(ice_json.dump(), "m.manifest.json");
  CHECK(ice_parsed.target == "icebreaker");
  CHECK(check_error(ice_parsed, ice) == "accepted");
  CHECK_THAT(check_error(parsed, ice), Catch::Contains("target: manifest default, image icebreaker"));
}

TEST_CASE("npu manifest reader rejects malformed manifests with one line naming the field", "[npu]") {
  const json good = npu::npu_manifest(test_image(22, {6, 5, 4}));
  REQUIRE(parse_error(good.dump()) == "accepted");

  const std::vector<Malformed> cases = {
      // types
      {"lanes as a string", [](json& j) { j["lanes"] = "16"; }, "'lanes' must be an integer from 1 to 255, got \"16\""},
      {"negative crc", [](json& j) { j["crc32"] = -1; }, "'crc32' must be an integer from 0 to 4294967295, got -1"},
      {"fractional in", [](json& j) { j["layers"][0]["in"] = 2.5; }, "'layers[0].in' must be an integer"},
      {"relu as a number", [](json& j) { j["layers"][1]["relu"] = 1; },
       "'layers[1].relu' must be true or false, got 1"},
      {"sections an object", [](json& j) { j["sections"] = json::object(); }, "'sections' must be an array of 1 to 16"},
      {"section name a number", [](json& j) { j["sections"][0]["name"] = 5; }, "'sections[0].name' must be a string"},
      {"layer not an object", [](json& j) { j["layers"][0] = json::array({1}); },
       "'layers[0]' must be a JSON object, got an array of 1 element"},
      {"format version a bool", [](json& j) { j["format_version"] = true; }, "'format_version' must be an integer"},
      {"target a number", [](json& j) { j["target"] = 3; }, "'target' must be a string of at most 32 bytes, got 3"},
      // ranges
      {"lanes 0", [](json& j) { j["lanes"] = 0; }, "got 0"},
      {"lanes 256", [](json& j) { j["lanes"] = 256; }, "from 1 to 255, got 256"},
      {"unknown target", [](json& j) { j["target"] = "ecp5"; },
       "'target' is \"ecp5\"; this seatorch knows the targets default, icebreaker"},
      {"format version 0", [](json& j) { j["format_version"] = 0; },
       "'format_version' must be an integer from 1 to 65535"},
      {"zero-point 128", [](json& j) { j["layers"][0]["output_zero_point"] = 128; },
       "'layers[0].output_zero_point' must be an integer from -128 to 127, got 128"},
      {"zero-point -129", [](json& j) { j["layers"][1]["input_zero_point"] = -129; }, "got -129"},
      {"zero-point 2^64 - 1", [](json& j) { j["layers"][0]["weight_zero_point"] = ~std::uint64_t{0}; },
       "got 18446744073709551615"},
      {"crc 2^32", [](json& j) { j["crc32"] = std::uint64_t{1} << 32; }, "got 4294967296"},
      {"address past 24 bits", [](json& j) { j["sections"][1]["address"] = 0x1000000; }, "from 0 to 16777215"},
      {"zero words", [](json& j) { j["sections"][2]["words"] = 0; }, "'sections[2].words' must be an integer from 1"},
      {"in 0", [](json& j) { j["layers"][0]["in"] = 0; }, "'layers[0].in' must be an integer from 1 to 65535"},
      {"out 65536", [](json& j) { j["layers"][1]["out"] = 65536; }, "got 65536"},
      {"a number too large for a double", [](json& j) { j["macs"] = "TOO_LARGE"; }, "not valid JSON"},
      // structure
      {"not an object",
       [](json& j) {
         j = json::array({1, 2});
       },
       "the manifest must be a JSON object"},
      {"missing layers", [](json& j) { j.erase("layers"); }, "the manifest has no 'layers' field"},
      {"missing w_base", [](json& j) { j["layers"][0].erase("w_base"); }, "layers[0] has no 'w_base' field"},
      {"unknown field", [](json& j) { j["note"] = "hand-edited"; }, "unexpected field 'note' in the manifest"},
      {"unknown layer field", [](json& j) { j["layers"][1]["bias"] = 0; }, "unexpected field 'bias' in layers[1]"},
      {"another format", [](json& j) { j["format"] = "onnx"; }, "'format' is \"onnx\", expected 'seatorch-npu-image'"},
      {"no crc section", [](json& j) { j["sections"].erase(j["sections"].size() - 1); }, "the last section must be"},
      {"layers that do not chain",
       [](json& j) {
         j["layers"][1]["in"] = 7;
         j["layers"][1]["macs"] = 7 * 4;
         j["layers"][1]["weight_rows"] = 7;
       },
       "layers[1].in is 7 but layers[0].out is 5"},
      // derived values that contradict the tables
      {"crc32_hex", [](json& j) { j["crc32_hex"] = "0x00000000"; }, "'crc32_hex' is \"0x00000000\", but 'crc32' gives"},
      {"lanes of another target", [](json& j) { j["lanes"] = 8; }, "'lanes' is 8, but the default target has 16"},
      {"architecture", [](json& j) { j["architecture"] = "6-5-3"; },
       "'architecture' is \"6-5-3\", but the layers give \"6-5-4\""},
      {"input_size", [](json& j) { j["input_size"] = 7; }, "'input_size' is 7, but the layers give 6"},
      {"output_size", [](json& j) { j["output_size"] = 3; }, "'output_size' is 3"},
      {"total_words", [](json& j) { j["total_words"] = j["total_words"].get<std::size_t>() + 1; },
       "but the sections give"},
      {"total macs", [](json& j) { j["macs"] = 1; }, "'macs' is 1, but the layers give 50"},
      {"layer macs", [](json& j) { j["layers"][0]["macs"] = 31; }, "'layers[0].macs' is 31, but in * out gives 30"},
      {"weight rows", [](json& j) { j["layers"][0]["weight_rows"] = 12; },
       "'layers[0].weight_rows' is 12, but ceil(out / lanes) * in with lanes 16 gives 6"},
      // counts over the limits
      {"17 sections", [](json& j) { j["sections"] = json(std::vector<int>(17, 0)); },
       "'sections' must be an array of 1 to 16 elements, got an array of 17 elements"},
      {"256 layers", [](json& j) { j["layers"] = json(std::vector<int>(256, 0)); },
       "1 to 255 elements, got an array of 256"},
      {"hostile name", [](json& j) { j["sections"].back()["name"] = "crc\n\x1b[2J"; }, "got 'crc\\x0a\\x1b[2J'"},
  };
  for (const Malformed& c : cases) {
    json j = good;
    c.change(j);
    std::string text = j.dump();
    if (const std::size_t at = text.find("\"TOO_LARGE\""); at != std::string::npos) text.replace(at, 11, "1e99999");
    const std::string message = parse_error(text);
    INFO(c.what << ": " << message);
    CHECK_THAT(message, Catch::StartsWith("m.manifest.json: ") && Catch::Contains(c.expected));
    CHECK(message.find('\n') == std::string::npos);
  }

  // Text that is not JSON at all, and 100,000 nested arrays (no recursion in the message).
  CHECK_THAT(parse_error(good.dump().substr(0, 40)), Catch::Contains("not valid JSON"));
  CHECK_THAT(parse_error(""), Catch::Contains("not valid JSON"));
  json deep = good;
  deep["lanes"] = "DEEP";
  std::string text = deep.dump();
  text.replace(text.find("\"DEEP\""), 6, std::string(100000, '[') + std::string(100000, ']'));
  CHECK_THAT(parse_error(text), Catch::Contains("'lanes' must be an integer from 1 to 255, got an array of 1 element"));
}

TEST_CASE("npu manifest reader refuses a file over its size limit before reading it", "[npu]") {
  const seatorch::test::ScratchDir dir;
  const std::filesystem::path path = dir / "big.manifest.json";
  write_text(path, std::string(npu::kManifestMaxFileBytes + 1, ' '));
  CHECK_THROWS_WITH(npu::read_npu_manifest(path), Catch::Contains("big.manifest.json") && Catch::Contains("1 MiB"));
}

TEST_CASE("npu manifest check names both files and what differs from the image", "[npu]") {
  const npu::NpuImage image = test_image(23, {6, 5, 4});
  const npu::NpuManifest good = npu::npu_manifest_of(image);
  REQUIRE(check_error(good, image) == "accepted");

  struct Mismatch {
    const char* what;
    std::function<void(npu::NpuManifest&)> change;
    const char* expected;
  };
  const std::vector<Mismatch> cases = {
      {"format version", [](npu::NpuManifest& m) { m.format_version = 2; }, "format version: manifest 2, image 1"},
      {"lanes", [](npu::NpuManifest& m) { m.lanes = 8; }, "lanes: manifest 8, image 16"},
      {"target", [](npu::NpuManifest& m) { m.target = "icebreaker"; }, "target: manifest icebreaker, image default"},
      {"crc", [](npu::NpuManifest& m) { m.crc ^= 0x10; }, "CRC-32: manifest 0x"},
      {"section address", [](npu::NpuManifest& m) { m.sections[1].address = 0x100004; },
       "section bias address: manifest @100004, image @100000"},
      {"section words", [](npu::NpuManifest& m) { m.sections[4].words += 4; }, "section weights words: manifest"},
      {"section name", [](npu::NpuManifest& m) { m.sections[2].name = "mult"; },
       "section 2 name: manifest mult, image multiplier"},
      {"section count", [](npu::NpuManifest& m) { m.sections.pop_back(); }, "sections: manifest 4, image 5"},
      {"layer w_base", [](npu::NpuManifest& m) { m.layers[1].w_base = 0; }, "layer 1 w_base: manifest 0, image 6"},
      {"layer zero-point", [](npu::NpuManifest& m) { m.layers[0].weight_zero_point += 1; },
       "layer 0 weight zero-point"},
      {"layer relu", [](npu::NpuManifest& m) { m.layers[1].relu = !m.layers[1].relu; },
       "layer 1 relu: manifest true, image false"},
      {"architecture", [](npu::NpuManifest& m) { m.layers.pop_back(); }, "architecture: manifest 6-5, image 6-5-4"},
  };
  for (const Mismatch& c : cases) {
    npu::NpuManifest m = good;
    c.change(m);
    const std::string message = check_error(m, image);
    INFO(c.what << ": " << message);
    CHECK_THAT(message, Catch::StartsWith("m.manifest.json does not describe m.hex (") && Catch::Contains(c.expected) &&
                            Catch::Contains("re-run `seatorch export --hex`"));
    CHECK(message.find('\n') == std::string::npos);
  }

  // Another model's manifest: every difference counted, the first four shown.
  const std::string other = check_error(npu::npu_manifest_of(test_image(24, {20, 7, 3})), image);
  CHECK_THAT(other, Catch::Contains("architecture: manifest 20-7-3, image 6-5-4") && Catch::Contains("more)"));
}

TEST_CASE("read_npu_hex checks the manifest beside the file when there is one", "[npu]") {
  const seatorch::test::ScratchDir dir;
  const std::filesystem::path hex = dir / "model.hex";
  const std::filesystem::path manifest = dir / "model.manifest.json";
  const npu::NpuImage image = test_image(25, {8, 6, 4});
  npu::write_npu_hex(hex, image);
  CHECK(npu::read_npu_hex(hex).crc == image.crc);

  std::filesystem::remove(manifest);  // the .hex is self-contained
  CHECK(npu::read_npu_hex(hex).crc == image.crc);

  // A stale manifest: written for another image, then the .hex re-exported alone.
  const npu::NpuImage other = test_image(26, {8, 6, 4});
  write_text(manifest, npu::npu_manifest(other).dump(2));
  CHECK_THROWS_WITH(npu::read_npu_hex(hex),
                    Catch::StartsWith(manifest.string() + " does not describe " + hex.string()) &&
                        Catch::Contains("CRC-32") && Catch::Contains("re-run `seatorch export --hex`"));

  write_text(manifest, "{\"format\": ");
  CHECK_THROWS_WITH(npu::read_npu_hex(hex), Catch::StartsWith(manifest.string() + ": not valid JSON") &&
                                                Catch::Contains("the manifest beside " + hex.string()) &&
                                                Catch::Contains("re-run `seatorch export --hex`"));

  std::filesystem::remove(manifest);
  std::filesystem::create_directory(manifest);
  CHECK_THROWS_WITH(npu::read_npu_hex(hex),
                    Catch::Contains(manifest.string()) && Catch::Contains("not a regular file"));
}

TEST_CASE("read_npu_hex reads an image for the target its manifest names", "[npu]") {
  const seatorch::test::ScratchDir dir;
  const std::filesystem::path hex = dir / "model.hex";
  const npu::NpuTarget& ice = npu::npu_target("icebreaker");
  const npu::NpuImage image = test_image(27, {8, 6, 4}, ice);
  npu::write_npu_hex(hex, image);
  CHECK(npu::read_npu_hex(hex).target == ice);
  CHECK(npu::read_npu_hex(hex, "icebreaker").target == ice);
  CHECK_THROWS_WITH(npu::read_npu_hex(hex, "default"),
                    hex.string() + " was exported for the icebreaker target (its manifest " +
                        npu::npu_manifest_path(hex).string() +
                        " says so), not for the default target; run it on the icebreaker target or export the model "
                        "again for default");
  CHECK_THROWS_WITH(npu::read_npu_hex(hex, "ecp5"), Catch::Contains("no NPU target 'ecp5'"));

  // Without the manifest nothing says which target: the default one, unless named.
  std::filesystem::remove(npu::npu_manifest_path(hex));
  CHECK_THROWS_WITH(npu::read_npu_hex(hex), Catch::Contains("built for 8 lanes, the default target has 16 (the "
                                                            "icebreaker target has 8)"));
  const npu::NpuImage named = npu::read_npu_hex(hex, "icebreaker");
  CHECK(named.target == ice);
  CHECK(named.layers == image.layers);
}
