// The NPU image layout against golden words, section sizes and a golden CRC written by hand
// from docs/NPU.md, the round trip through decode_npu_image() for every target, and every rule
// and limit, named with its target: the builder's (image_builder.hpp) and the reader's
// (image_decode.hpp). CRCs come from a bitwise CRC-32 written here, not from core::crc32.
#include "seatorch/npu/image.hpp"

#include "npu_test_models.hpp"
#include "seatorch/core/crc32.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/npu/image_builder.hpp"
#include "seatorch/npu/image_decode.hpp"

#include <catch2/catch.hpp>

#include <limits>
#include <string_view>

namespace npu = seatorch::npu;
namespace q = seatorch::quant;

namespace {

// The image CRC as docs/NPU.md defines it, bit by bit: CRC-32 (reflected polynomial
// 0xEDB88320, initial value and final XOR 0xFFFFFFFF) over every section's words, each as
// its 4 little-endian bytes, in order.
std::uint32_t crc32_update(std::uint32_t c, std::uint8_t byte) {
  c ^= byte;
  for (int k = 0; k < 8; ++k) c = (c & 1U) ? (c >> 1) ^ 0xEDB88320U : c >> 1;
  return c;
}

std::uint32_t crc32_bitwise(std::string_view bytes) {
  std::uint32_t c = 0xFFFFFFFFU;
  for (const char b : bytes) c = crc32_update(c, static_cast<std::uint8_t>(b));
  return ~c;
}

std::uint32_t image_crc(const std::vector<npu::NpuSection>& sections) {
  std::uint32_t c = 0xFFFFFFFFU;
  for (const npu::NpuSection& section : sections) {
    for (const std::uint32_t word : section.words) {
      for (int byte = 0; byte < 4; ++byte) c = crc32_update(c, static_cast<std::uint8_t>(word >> (8 * byte)));
    }
  }
  return ~c;
}

// A 2-input, 5-output layer: w[j][i] = 10*j + i + 1, so every weight names its position.
q::Int8Model tiny_model() {
  q::Int8Layer layer;
  layer.in = 2;
  layer.out = 5;
  for (std::size_t j = 0; j < 5; ++j) {
    for (std::size_t i = 0; i < 2; ++i) layer.weight.push_back(static_cast<std::int8_t>(10 * j + i + 1));
    layer.bias.push_back(-static_cast<std::int32_t>(j) - 1);
    layer.multiplier.push_back((1 << 30) + static_cast<std::int32_t>(j));
    layer.shift.push_back(static_cast<std::int32_t>(j));
  }
  layer.input_zero_point = -128;
  layer.weight_zero_point = 3;
  layer.output_zero_point = -7;
  layer.relu = true;
  return q::Int8Model{{layer}};
}

}  // namespace

TEST_CASE("npu image lays out header descriptors rows and weights as specified", "[npu]") {
  npu::NpuTarget four = npu::default_npu_target();
  four.limits.lanes = 4;  // one 32-bit word per weight row
  const npu::NpuImage image = npu::build_npu_image(tiny_model(), four);
  REQUIRE(image.sections.size() == 5);
  const std::vector<std::uint32_t> header{0x55504E53U, 0x01040001U, 0x00050002U, 0, 0x00050002U,
                                          0,           0,           0x01F90380U};  // relu, zy -7, zw 3, zx -128
  CHECK(image.sections[0].words == header);
  CHECK(image.sections[0].address == 0x000000U);
  CHECK(image.sections[1].address == 0x100000U);
  CHECK(image.sections[2].address == 0x200000U);
  CHECK(image.sections[3].address == 0x300000U);
  CHECK(image.sections[4].address == 0x400000U);
  const std::vector<std::string> names{"header", "bias", "multiplier", "shift", "weights"};
  for (const npu::NpuSection::Id id : npu::kNpuSectionIds) {
    const std::size_t index = npu::section_index(id);
    CHECK(&image.section(id) == &image.sections[index]);
    CHECK(image.section(id).name == names[index]);
    CHECK(npu::npu_section_name(id) == names[index]);
    CHECK(npu::npu_section_address(id) == 0x100000U * index);
  }
  CHECK(image.sections[1].words ==
        std::vector<std::uint32_t>{0xFFFFFFFFU, 0xFFFFFFFEU, 0xFFFFFFFDU, 0xFFFFFFFCU, 0xFFFFFFFBU});
  CHECK(image.sections[2].words ==
        std::vector<std::uint32_t>{0x40000000U, 0x40000001U, 0x40000002U, 0x40000003U, 0x40000004U});
  CHECK(image.sections[3].words == std::vector<std::uint32_t>{0, 1, 2, 3, 4});
  // group 0 (rows 0-3) for inputs 0 and 1, then group 1 (row 4, lanes 1-3 zero)
  const std::vector<std::uint32_t> weights{0x1F150B01U, 0x20160C02U, 0x00000029U, 0x0000002AU};
  CHECK(image.sections[4].words == weights);
  // 4 + 4 header words, 5 + 5 + 5 row entries, ceil(5 / 4) * 2 rows of one word.
  CHECK(image.total_words() == 27);
  CHECK(image.macs() == 10);
  // The CRC-32 of exactly those 27 words as 108 little-endian bytes (Python's
  // zlib.crc32 of struct.pack('<27I', *words) gives the same).
  CHECK(crc32_bitwise("123456789") == 0xCBF43926U);  // the oracle itself, on the check value
  CHECK(image_crc(image.sections) == 0xE5692F32U);
  CHECK(image.crc == 0xE5692F32U);
  const std::vector<std::uint8_t> bytes = npu::npu_image_bytes(image.sections);
  REQUIRE(bytes.size() == 108);
  // "SNPU", then version 1, 4 lanes and 1 layer.
  CHECK(std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + 8) ==
        std::vector<std::uint8_t>{0x53, 0x4E, 0x50, 0x55, 0x01, 0x00, 0x04, 0x01});
  CHECK(std::vector<std::uint8_t>(bytes.end() - 4, bytes.end()) == std::vector<std::uint8_t>{0x2A, 0, 0, 0});
  CHECK(image.architecture() == "2-5");
  CHECK(image.layers[0].weight_rows == 4);
}

TEST_CASE("npu image decodes back to the model it was built from", "[npu]") {
  const npu::NpuTarget& target = NPU_TEST_EACH_TARGET();
  INFO("target " << target.name);
  seatorch::core::Rng rng(4);
  // Section sizes by hand from docs/NPU.md: 4 + 4 L header words; sum out rows of bias,
  // multiplier and shift; (lanes / 4) * sum ceil(out / lanes) * in weight words. So
  // 784-64-10: 12, 74 and 4 * (4 * 784 + 1 * 64) = 2 * (8 * 784 + 2 * 64) = 12800 on both;
  // 30-17-33-5: 16, 55 and 4 * (2 * 30 + 3 * 17 + 1 * 33) = 576 (16 lanes) or
  // 2 * (3 * 30 + 5 * 17 + 1 * 33) = 416 (8 lanes).
  struct Sizes {
    std::vector<std::size_t> layers;
    std::size_t header, rows, weights_16_lanes, weights_8_lanes;
  };
  for (const Sizes& expected : {Sizes{{784, 64, 10}, 12, 74, 12800, 12800}, Sizes{{30, 17, 33, 5}, 16, 55, 576, 416}}) {
    const q::Int8Model model = npu::test::random_model(rng, expected.layers);
    const npu::NpuImage image = npu::build_npu_image(model, target);
    CHECK(image.target == target);
    CHECK(image.sections[0].words[1] >> 16 == (target.limits.lanes | image.layers.size() << 8));
    REQUIRE((target.limits.lanes == 16 || target.limits.lanes == 8));
    const std::size_t weights = target.limits.lanes == 16 ? expected.weights_16_lanes : expected.weights_8_lanes;
    CHECK(image.sections[0].words.size() == expected.header);
    for (std::size_t s = 1; s <= 3; ++s) CHECK(image.sections[s].words.size() == expected.rows);
    CHECK(image.sections[4].words.size() == weights);
    CHECK(image.total_words() == expected.header + 3 * expected.rows + weights);
    CHECK(image.crc == image_crc(image.sections));
    const q::Int8Model back = npu::decode_npu_image(image);
    REQUIRE(back.layers.size() == model.layers.size());
    for (std::size_t l = 0; l < model.layers.size(); ++l) {
      INFO("layer " << l);
      const q::Int8Layer& a = model.layers[l];
      const q::Int8Layer& b = back.layers[l];
      CHECK(a.weight == b.weight);
      CHECK(a.bias == b.bias);
      CHECK(a.multiplier == b.multiplier);
      CHECK(a.shift == b.shift);
      CHECK(a.input_zero_point == b.input_zero_point);
      CHECK(a.weight_zero_point == b.weight_zero_point);
      CHECK(a.output_zero_point == b.output_zero_point);
      CHECK(a.relu == b.relu);
    }
    const npu::NpuImage again = npu::npu_image_from_sections(image.sections, image.crc, "test", target);
    CHECK(again.layers == image.layers);
    CHECK(again.target == target);
  }
}

TEST_CASE("npu image builder names the limit a model breaks and the target", "[npu]") {
  seatorch::core::Rng rng(6);
  auto message_of = [](const q::Int8Model& model, const npu::NpuTarget& target) -> std::string {
    try {
      npu::build_npu_image(model, target);
    } catch (const seatorch::core::InputError& e) {
      return e.what();
    }
    return "no error";
  };
  const npu::NpuTarget& fast = npu::default_npu_target();
  npu::NpuTarget small = fast;
  small.limits.wmem_depth = 100;
  CHECK_THAT(message_of(npu::test::random_model(rng, {60, 40, 10}), small), Catch::Contains("WmemDepth"));
  small = fast;
  small.limits.row_depth = 20;
  CHECK_THAT(message_of(npu::test::random_model(rng, {8, 16, 10}), small), Catch::Contains("RowDepth"));
  CHECK_THAT(message_of(npu::test::random_model(rng, {1025, 2}), fast),
             Catch::Contains("the default target's activation buffers hold 1 to 1024") && Catch::Contains("ActDepth"));
  std::vector<std::size_t> deep(17, 4);
  CHECK_THAT(message_of(npu::test::random_model(rng, deep), fast), Catch::Contains("MaxLayers"));
  CHECK_THAT(message_of(q::Int8Model{}, fast), Catch::Contains("MaxLayers"));

  // The README's model fits the default target, not the UP5K's SPRAM (8 lanes: 32 * 784 +
  // 16 * 256 + 2 * 128 rows) nor its 256 row entries.
  const npu::NpuTarget& ice = npu::npu_target("icebreaker");
  const q::Int8Model readme = npu::test::random_model(rng, {784, 256, 128, 10});
  CHECK(message_of(readme, fast) == "no error");
  CHECK(message_of(readme, ice) ==
        "784-256-128-10 needs 29440 weight rows of 8 lanes but the icebreaker target's weight memory has 16384 "
        "(WmemDepth); use fewer or narrower hidden layers");
  CHECK(message_of(npu::test::random_model(rng, {16, 200, 100, 10}), ice) ==
        "16-200-100-10 has 310 neurons but the icebreaker target's bias/multiplier/shift memories hold 256 "
        "(RowDepth); use fewer or narrower layers");
  CHECK(message_of(npu::test::random_model(rng, {784, 128, 10}), ice) == "no error");

  q::Int8Model bad = npu::test::random_model(rng, {4, 3});
  bad.layers[0].shift[1] = 32;
  CHECK_THAT(message_of(bad, fast), Catch::Contains("layers.0.shift[1] = 32 is outside [0, 31]"));
  bad = npu::test::random_model(rng, {4, 3});
  bad.layers[0].output_zero_point = 128;
  CHECK_THAT(message_of(bad, fast), Catch::Contains("layers.0.output_zero_point = 128 is outside [-128, 127]"));
  bad = npu::test::random_model(rng, {4, 3, 2});
  bad.layers[1].in = 4;
  CHECK_THAT(message_of(bad, fast), Catch::Contains("must chain"));
  bad = npu::test::random_model(rng, {4, 3});
  bad.layers[0].bias.pop_back();
  CHECK_THAT(message_of(bad, fast), Catch::Contains("expected 12 weights"));
}

TEST_CASE("npu targets are looked up by name", "[npu]") {
  CHECK(npu::npu_target_names() == std::vector<std::string>{"default", "icebreaker"});
  CHECK(npu::default_npu_target().name == "default");
  const npu::NpuTarget& ice = npu::npu_target("icebreaker");
  CHECK(ice.rtl_top == "npu_ice40");
  CHECK(ice.limits == npu::NpuLimits{npu::kIce40Lanes, npu::kIce40WmemDepth, npu::kIce40RowDepth, npu::kIce40ActDepth,
                                     npu::kMaxLayers});
  CHECK(ice.serial_requant);
  CHECK_FALSE(npu::default_npu_target().serial_requant);
  CHECK_THROWS_WITH(npu::npu_target("ice40"), "no NPU target 'ice40'; the targets are default, icebreaker");
  CHECK(npu::npu_targets_with_lanes(8) == "icebreaker");
  CHECK(npu::npu_targets_with_lanes(32).empty());
}

TEST_CASE("npu image from sections rejects a bad CRC and a bad header", "[npu]") {
  seatorch::core::Rng rng(7);
  const npu::NpuImage image = npu::build_npu_image(npu::test::random_model(rng, {10, 6, 3}));
  CHECK_NOTHROW(npu::npu_image_from_sections(image.sections, image_crc(image.sections), "x.hex"));
  CHECK_THROWS_WITH(npu::npu_image_from_sections(image.sections, image.crc ^ 1U, "x.hex"),
                    Catch::Contains("x.hex") && Catch::Contains("corrupted"));
  std::vector<npu::NpuSection> sections = image.sections;
  sections[0].words[0] = 0;
  CHECK_THROWS_WITH(npu::npu_image_from_sections(sections, image_crc(sections), "x.hex"), Catch::Contains("magic"));
  sections = image.sections;
  sections[0].words[1] = (sections[0].words[1] & 0xFF00FFFFU) | (8U << 16);
  CHECK_THROWS_WITH(npu::npu_image_from_sections(sections, image_crc(sections), "x.hex"),
                    "x.hex: the image was built for 8 lanes, the default target has 16 (the icebreaker target has 8); "
                    "export the model again for the default target");
  sections = image.sections;
  sections[0].words[4 + 1] = 1000;  // layer 0 w_base beyond the weights
  CHECK_THROWS_WITH(npu::npu_image_from_sections(sections, image_crc(sections), "x.hex"),
                    Catch::Contains("weight rows"));
}

TEST_CASE("npu images whose int32 accumulator could overflow are refused", "[npu]") {
  // One row of 2 inputs, z_x = -128, z_w = 0: with weights 127 the products reach
  // 2 * 255 * 127 = 64770 at x = 127, with weights -128 they reach 2 * 255 * -128 = -65280.
  constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  const auto model = [](std::int8_t w, std::int32_t bias, std::int32_t z_w) {
    q::Int8Layer layer;
    layer.in = 2;
    layer.out = 1;
    layer.weight = {w, w};
    layer.bias = {bias};
    layer.multiplier = {1 << 30};
    layer.shift = {0};
    layer.input_zero_point = -128;
    layer.weight_zero_point = z_w;
    layer.output_zero_point = 0;
    return q::Int8Model{{layer}};
  };
  const std::vector<std::uint8_t> bright{255, 255};
  const q::Int8Model top = model(127, kMax - 64770, 0);
  const npu::NpuImage image = npu::build_npu_image(top);
  // At the limit the reference reaches INT32_MAX exactly (UBSan watches in the asan preset).
  CHECK(q::int8_forward_ref(npu::decode_npu_image(image), bright) == std::vector<std::int8_t>{127});
  CHECK_THROWS_WITH(npu::build_npu_image(model(127, kMax - 64769, 0)),
                    Catch::Contains("layer 0 row 0: bias 2147418878") && Catch::Contains("2147483648]"));
  CHECK_NOTHROW(npu::build_npu_image(model(-128, kMin + 65280, 0)));
  CHECK_THROWS_WITH(npu::build_npu_image(model(-128, kMin + 65279, 0)), Catch::Contains("[-2147483649, "));
  // Weights equal to z_w make every product 0: any bias is safe (session_test uses INT32_MIN).
  CHECK_NOTHROW(npu::build_npu_image(model(5, kMin, 5)));

  // The same limit in the reader, on an image whose bias word was changed (CRC recomputed).
  std::vector<npu::NpuSection> sections = image.sections;
  sections[1].words[0] = static_cast<std::uint32_t>(kMax - 64769);
  CHECK_THROWS_WITH(npu::npu_image_from_sections(sections, image_crc(sections), "x.hex"),
                    Catch::StartsWith("x.hex: layer 0 row 0: bias 2147418878"));
}
