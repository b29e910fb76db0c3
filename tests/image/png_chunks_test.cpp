// check_png_chunks: a valid PNG passes unchanged; a flipped bit in any chunk, a chunk that
// runs past the end, an impossible length and a missing IEND are refused naming the chunk;
// empty IDAT chunks are dropped, and the image decodes as without them.
#include "seatorch/image/png_chunks.hpp"

#include "../data/data_test_util.hpp"
#include "image_test_util.hpp"
#include "seatorch/image/image_file.hpp"
#include "seatorch/image/png_writer.hpp"

#include <catch2/catch.hpp>

namespace {

using seatorch::test::Bytes;

// A 6 x 5 gray PNG from stb_image_write: signature, IHDR, one IDAT, IEND.
Bytes sample_png() {
  std::vector<std::uint8_t> gray(30);
  for (std::size_t i = 0; i < gray.size(); ++i) gray[i] = static_cast<std::uint8_t>(i * 8);
  return seatorch::test::png_bytes(gray, 6, 5, 1);
}

// The byte offsets of the chunks of a well-formed PNG.
std::vector<std::size_t> chunk_offsets(const Bytes& png) {
  std::vector<std::size_t> offsets;
  for (std::size_t pos = 8; pos < png.size();) {
    offsets.push_back(pos);
    pos += 12 + (std::size_t{png[pos]} << 24 | std::size_t{png[pos + 1]} << 16 | std::size_t{png[pos + 2]} << 8 |
                 png[pos + 3]);
  }
  return offsets;
}

const Bytes kEmptyIdat{0, 0, 0, 0, 'I', 'D', 'A', 'T', 0x35, 0xaf, 0x06, 0x1e};  // CRC-32 of "IDAT"

}  // namespace

TEST_CASE("check_png_chunks passes a valid PNG and refuses any flipped bit", "[data]") {
  const Bytes png = sample_png();
  CHECK_FALSE(seatorch::image::check_png_chunks(png, "ok.png").has_value());
  // Every bit of every byte after the signature: length, type, data or CRC.
  for (std::size_t i = 8; i < png.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      Bytes flipped = png;
      flipped[i] ^= static_cast<std::uint8_t>(1 << bit);
      INFO("byte " << i << " bit " << bit);
      CHECK_THROWS_AS(seatorch::image::check_png_chunks(flipped, "bad.png"), seatorch::core::InputError);
    }
  }
  Bytes corrupted = png;
  corrupted[chunk_offsets(png)[1] + 10] ^= 0x01;  // a byte of the IDAT data
  seatorch::test::check_input_error([&] { seatorch::image::check_png_chunks(corrupted, "bad.png"); },
                                    "bad\\.png: corrupted: the CRC of the PNG chunk 'IDAT' at byte 33 is [0-9a-f]{8}, "
                                    "its data gives [0-9a-f]{8}");
}

TEST_CASE("check_png_chunks refuses chunks past the end and impossible lengths", "[data]") {
  const Bytes png = sample_png();
  const std::size_t idat = chunk_offsets(png)[1];
  Bytes long_chunk = png;
  long_chunk[idat + 2] = 0x10;  // 4096 more bytes than the file has
  seatorch::test::check_input_error(
      [&] { seatorch::image::check_png_chunks(long_chunk, "a.png"); },
      "a\\.png: truncated: the PNG chunk 'IDAT' at byte 33 needs [0-9]+ bytes, the file has "
      "[0-9]+ after it");
  Bytes huge = png;
  huge[idat] = 0x80;
  seatorch::test::check_input_error([&] { seatorch::image::check_png_chunks(huge, "a.png"); },
                                    "a\\.png: the PNG chunk 'IDAT' at byte 33 claims [0-9]+ bytes, above the format's "
                                    "limit of 2\\^31 - 1");
  Bytes no_end(png.begin(), png.begin() + static_cast<std::ptrdiff_t>(chunk_offsets(png)[2]));
  seatorch::test::check_input_error([&] { seatorch::image::check_png_chunks(no_end, "a.png"); },
                                    "a\\.png: truncated: the PNG file ends at byte [0-9]+ before its IEND chunk");
  // A control byte in a chunk type is quoted escaped.
  Bytes odd_type = png;
  odd_type[idat + 4] = '\n';
  seatorch::test::check_input_error([&] { seatorch::image::check_png_chunks(odd_type, "a.png"); },
                                    "a\\.png: corrupted: the CRC of the PNG chunk '\\\\x0aDAT' at byte 33 .*");
}

TEST_CASE("check_png_chunks drops empty IDAT chunks and the image decodes the same", "[data]") {
  const Bytes png = sample_png();
  const std::size_t idat = chunk_offsets(png)[1];
  const std::size_t iend = chunk_offsets(png)[2];
  // An empty IDAT before and one after the real one.
  Bytes with_empty(png.begin(), png.begin() + static_cast<std::ptrdiff_t>(idat));
  with_empty.insert(with_empty.end(), kEmptyIdat.begin(), kEmptyIdat.end());
  with_empty.insert(with_empty.end(), png.begin() + static_cast<std::ptrdiff_t>(idat),
                    png.begin() + static_cast<std::ptrdiff_t>(iend));
  with_empty.insert(with_empty.end(), kEmptyIdat.begin(), kEmptyIdat.end());
  with_empty.insert(with_empty.end(), png.begin() + static_cast<std::ptrdiff_t>(iend), png.end());
  const auto kept = seatorch::image::check_png_chunks(with_empty, "e.png");
  REQUIRE(kept.has_value());
  CHECK(*kept == png);
  CHECK(seatorch::image::decode_image(with_empty, "e.png").pixels ==
        seatorch::image::decode_image(png, "p.png").pixels);
  // The fuzzer's input: a lone empty IDAT (stb_image 2.27 passed a null pointer to memcpy).
  const Bytes crash = seatorch::test::read_file(std::filesystem::path(SEATORCH_SOURCE_DIR) / "tests" / "fuzz" /
                                                "corpus" / "image" / "crash-png-empty-idat.png");
  CHECK_THROWS_AS(seatorch::image::decode_image(crash, "crash.png"), seatorch::core::InputError);
}

TEST_CASE("png_bytes writes a PNG that stb_image decodes to the same pixels, with valid chunks", "[data]") {
  seatorch::image::GrayImage image{37, 11, {}};
  for (std::size_t i = 0; i < image.width * image.height; ++i) image.pixels.push_back(static_cast<std::uint8_t>(i * 7));
  const std::vector<std::uint8_t> bytes = seatorch::image::png_bytes(image);
  CHECK(seatorch::image::check_png_chunks(bytes, "written.png").has_value() == false);
  const seatorch::image::GrayImage decoded = seatorch::image::decode_image(bytes, "written.png");
  CHECK(decoded.width == image.width);
  CHECK(decoded.height == image.height);
  CHECK(decoded.pixels == image.pixels);
  CHECK_THROWS_AS(seatorch::image::png_bytes(seatorch::image::GrayImage{}), seatorch::core::InputError);
}
