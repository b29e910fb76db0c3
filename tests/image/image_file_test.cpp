// The picture readers: every format decodes to the pixels that were encoded (stb_image_write
// and hand-written PGM/PPM as the oracles); every proper prefix of a valid file, oversized
// headers, JPEG and other unsupported formats and malformed netpbm headers are refused with
// one line.
#include "seatorch/image/image_file.hpp"

#include "../data/data_test_util.hpp"
#include "image_test_util.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/image/pnm.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

namespace {

using seatorch::image::GrayImage;
using seatorch::test::Bytes;

Bytes text_bytes(std::string_view text, std::initializer_list<std::uint8_t> samples = {}) {
  Bytes bytes(text.begin(), text.end());
  bytes.insert(bytes.end(), samples);
  return bytes;
}

// A 13 x 7 test pattern of every kind of level.
std::vector<std::uint8_t> pattern(std::size_t width, std::size_t height, std::size_t channels) {
  std::vector<std::uint8_t> samples(width * height * channels);
  for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = static_cast<std::uint8_t>((i * 37 + i / 5) % 256);
  return samples;
}

std::uint8_t stb_gray(unsigned r, unsigned g, unsigned b) {
  return static_cast<std::uint8_t>((77 * r + 150 * g + 29 * b) >> 8);
}

void check_refused(const Bytes& bytes, const std::string& pattern) {
  seatorch::test::check_input_error([&] { seatorch::image::decode_image(bytes, "in.img"); }, pattern);
}

// Every proper prefix of `bytes` is refused (a truncated file never decodes).
void check_prefixes_refused(const Bytes& bytes, const char* format) {
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    INFO(format << " cut to " << n << " of " << bytes.size() << " bytes");
    CHECK_THROWS_AS(seatorch::image::decode_image(std::span(bytes).first(n), "cut.img"), seatorch::core::InputError);
  }
}

}  // namespace

TEST_CASE("decode_image reads gray and colour PNG and BMP exactly", "[data]") {
  const std::size_t w = 13, h = 7;
  const std::vector<std::uint8_t> gray = pattern(w, h, 1);
  const std::vector<std::uint8_t> rgb = pattern(w, h, 3);
  std::vector<std::uint8_t> rgb_gray(w * h);
  for (std::size_t i = 0; i < w * h; ++i) rgb_gray[i] = stb_gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
  for (const auto& [name, bytes, expected] :
       {std::tuple{"gray PNG", seatorch::test::png_bytes(gray, w, h, 1), gray},
        std::tuple{"RGB PNG", seatorch::test::png_bytes(rgb, w, h, 3), rgb_gray},
        std::tuple{"gray BMP", seatorch::test::bmp_bytes(gray, w, h, 1), gray},
        std::tuple{"RGB BMP", seatorch::test::bmp_bytes(rgb, w, h, 3), rgb_gray}}) {
    INFO(name);
    const GrayImage image = seatorch::image::decode_image(bytes, "in.img");
    CHECK(image.width == w);
    CHECK(image.height == h);
    CHECK(image.pixels == expected);
  }
}

TEST_CASE("decode_image composites transparent pixels over white", "[data]") {
  // Gray + alpha: black ink on a transparent (black, alpha 0) canvas, one half-transparent pixel.
  const std::vector<std::uint8_t> samples{0, 0, 0, 255, 0, 128, 200, 255};
  const GrayImage image = seatorch::image::decode_image(seatorch::test::png_bytes(samples, 4, 1, 2), "in.png");
  // (g a + 255 (255 - a) + 127) / 255: 255, 0, (0 + 255 * 127 + 127) / 255 = 127, 200.
  CHECK(image.pixels == std::vector<std::uint8_t>{255, 0, 127, 200});
}

TEST_CASE("decode_image refuses JPEG by name", "[data]") {
  // stb_image 2.27's JPEG decoder failed fuzzing (tests/fuzz/corpus/image/crash-jpeg-*): JPEG
  // is refused up front, valid or not.
  std::vector<std::uint8_t> gray(32 * 24, 128);
  check_refused(
      seatorch::test::jpeg_bytes(gray, 32, 24, 1, 90),
      "in\\.img: a JPEG image; seatorch reads PNG, BMP or binary PGM/PPM: convert it first \\(e\\.g\\. to PNG\\)");
  const Bytes crash = seatorch::test::read_file(std::filesystem::path(SEATORCH_SOURCE_DIR) / "tests" / "fuzz" /
                                                "corpus" / "image" / "crash-jpeg-huffman-overflow.jpg");
  REQUIRE(crash.size() == 400);
  check_refused(crash, "in\\.img: a JPEG image; .*");
}

TEST_CASE("parse_pnm reads P5 and P6 with comments, any maxval and 16-bit samples", "[data]") {
  const std::string rgb = "P6 # colour\n2 1\n# maxval next\n255\n";
  const GrayImage colour =
      seatorch::image::decode_image(text_bytes(rgb, {0x10, 0x20, 0x30, 0xff, 0x00, 0x80}), "in.ppm");
  CHECK(colour.pixels == std::vector<std::uint8_t>{stb_gray(0x10, 0x20, 0x30), stb_gray(0xff, 0x00, 0x80)});
  // maxval 15: 0, 7, 15 -> round(255 s / 15) = 0, 119, 255.
  const GrayImage fifteen = seatorch::image::decode_image(text_bytes("P5\n3 1\n15\n", {0, 7, 15}), "a.pgm");
  CHECK(fifteen.pixels == std::vector<std::uint8_t>{0, 119, 255});
  // 16-bit big-endian: 0x1234 of 65535 -> round(4660 * 255 / 65535) = 18.
  const GrayImage wide = seatorch::image::decode_image(text_bytes("P5 1 1 65535\n", {0x12, 0x34}), "b.pgm");
  CHECK(wide.pixels == std::vector<std::uint8_t>{18});
  // The writer's output reads back unchanged.
  const GrayImage image{13, 7, pattern(13, 7, 1)};
  const GrayImage back = seatorch::image::parse_pnm(seatorch::image::pgm_bytes(image), "back.pgm");
  CHECK(back.width == 13);
  CHECK(back.height == 7);
  CHECK(back.pixels == image.pixels);
}

TEST_CASE("write_pgm writes atomically what read_image reads back", "[data]") {
  const seatorch::test::ScratchDir dir;
  const GrayImage image{5, 3, pattern(5, 3, 1)};
  seatorch::image::write_pgm(dir / "sub" / "out.pgm", image);
  CHECK(seatorch::image::read_image(dir / "sub" / "out.pgm").pixels == image.pixels);
  CHECK(seatorch::test::read_file(dir / "sub" / "out.pgm") == seatorch::image::pgm_bytes(image));
}

TEST_CASE("decode_image refuses every proper prefix of a valid file", "[data]") {
  const std::vector<std::uint8_t> rgb = pattern(6, 5, 3);
  check_prefixes_refused(seatorch::test::png_bytes(rgb, 6, 5, 3), "PNG");
  check_prefixes_refused(seatorch::test::bmp_bytes(rgb, 6, 5, 3), "BMP");
  check_prefixes_refused(seatorch::image::pgm_bytes(GrayImage{6, 5, pattern(6, 5, 1)}), "PGM");
  const Bytes png = seatorch::test::png_bytes(rgb, 6, 5, 3);
  check_refused(Bytes(png.begin(), png.end() - 12),
                "in\\.img: truncated: the PNG file ends at byte [0-9]+ before its IEND chunk");
  const Bytes bmp = seatorch::test::bmp_bytes(rgb, 6, 5, 3);
  check_refused(Bytes(bmp.begin(), bmp.end() - 1),
                "in\\.img: truncated: the BMP data ends before the last pixel of its 6 x 5");
}

TEST_CASE("decode_image refuses sizes above the limit before decoding", "[data]") {
  // A PNG whose header claims 5000 x 20 (the IHDR patched, its CRC recomputed).
  Bytes png = seatorch::test::png_bytes(pattern(4, 4, 1), 4, 4, 1);
  const auto put_be32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) png[at + i] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
  };
  put_be32(16, 5000);
  put_be32(20, 20);
  seatorch::test::fix_png_crc(png, 8);
  check_refused(
      png, "in\\.img: 5000 x 20 pixels is outside 1\\.\\.4096 on a side, the limit for an image; scale it down first");
  Bytes bmp = seatorch::test::bmp_bytes(pattern(4, 4, 3), 4, 4, 3);
  bmp[18] = 0x89;  // width 0x1389 = 5001
  bmp[19] = 0x13;
  check_refused(bmp, "in\\.img: 5001 x 4 pixels is outside 1\\.\\.4096 .*");
  check_refused(text_bytes("P5 4097 1 255\n"),
                "in\\.img: a width of 4097 pixels is outside 1\\.\\.4096, the limit for an image");
  check_refused(text_bytes("P5 1 99999 255\n"), "in\\.img: a height of 99999 pixels is outside 1\\.\\.4096.*");
}

TEST_CASE("decode_image names unsupported and unknown formats", "[data]") {
  check_refused({}, "in\\.img: the file is empty; expected a picture \\(PNG, BMP or binary PGM/PPM\\)");
  check_refused(text_bytes("GIF89a\x01\x00"),
                "in\\.img: a GIF image; seatorch reads PNG, BMP or binary PGM/PPM: convert it first.*");
  check_refused(text_bytes(std::string("II*\0rest", 8)), "in\\.img: a TIFF image; .*");
  check_refused(text_bytes("P2\n1 1\n255\n0\n"), "in\\.img: an ASCII PGM image; .*");
  check_refused(text_bytes("hello, world\n"),
                "in\\.img: not a picture seatorch can read \\(it reads PNG, BMP or binary PGM/PPM; the file starts "
                "with \"hello, w\"\\)");
  check_refused(text_bytes("\x1b[31m\n"), ".*starts with \"\\\\x1b\\[31m\\\\x0a\"\\)");
}

TEST_CASE("parse_pnm refuses malformed headers and sample data", "[data]") {
  const std::string pixel = "\x01";
  check_refused(text_bytes("P5"), "in\\.img: the PNM header ends before the width");
  check_refused(text_bytes("P5 x"), "in\\.img: expected the width as a decimal number in the PNM header, found 'x'");
  check_refused(text_bytes("P5 0 1 255\n"), "in\\.img: a width of 0 pixels is outside 1\\.\\.4096.*");
  check_refused(text_bytes("P5 123456789012 1 255\n"), "in\\.img: the width in the PNM header has more than 5 digits");
  check_refused(text_bytes("P5 1 1 0\n" + pixel), "in\\.img: a maxval of 0 is outside 1\\.\\.65535");
  check_refused(text_bytes("P5 1 1 65536\n" + pixel), "in\\.img: a maxval of 65536 is outside 1\\.\\.65535");
  check_refused(text_bytes("P5 1 1 255"),
                "in\\.img: the PNM header must end with one whitespace byte after the maxval");
  check_refused(text_bytes("P5 1 1 255#\n" + pixel), "in\\.img: the PNM header must end with one whitespace byte.*");
  check_refused(text_bytes("P5 2 2 255\n" + pixel), "in\\.img: truncated: 1 bytes of pixel data where 2 x 2 needs 4");
  check_refused(text_bytes("P5 1 1 255\n" + pixel + "xy"), "in\\.img: 2 bytes after the pixel data .*");
  check_refused(text_bytes("P5 2 1 15\n\x01\x10"), "in\\.img: a sample of 16 at byte 11 is above the maxval 15");
  check_refused(text_bytes("P5 1 1 1000\n" + pixel), "in\\.img: truncated: 1 bytes of pixel data where 1 x 1 needs 2");
}

TEST_CASE("read_image refuses missing files, directories and an empty path", "[data]") {
  const seatorch::test::ScratchDir dir;
  // An empty path read as "": no such file" before it was named.
  seatorch::test::check_input_error([&] { seatorch::image::read_image(""); },
                                    "the path is empty; give the path of a picture");
  seatorch::test::check_input_error([&] { seatorch::image::read_image(dir / "none.png"); },
                                    ".*none\\.png: no such file; give the path of a picture");
  seatorch::test::check_input_error([&] { seatorch::image::read_image(dir.path()); },
                                    ".*: not a regular file; give the path of a picture");
}
