// read_data_file and gunzip: transparent gzip by content, the size cap, and clean errors.
#include "seatorch/data/data_file.hpp"

#include "data_test_util.hpp"
#include "seatorch/core/error.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using Catch::Matchers::Contains;
using seatorch::test::Bytes;

namespace {

Bytes sample_bytes(std::size_t n) {
  Bytes bytes(n);
  for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<std::uint8_t>((i * 7 + i / 13) % 251);
  return bytes;
}

}  // namespace

TEST_CASE("gzip is detected by content and a raw file is returned as is", "[data]") {
  seatorch::test::ScratchDir dir;
  const Bytes original = sample_bytes(10'000);
  // Deliberately misleading names: the magic decides, not the extension.
  seatorch::test::write_file(dir / "plain.gz", original);
  seatorch::test::write_file(dir / "packed.bin", seatorch::test::gzip(original));
  CHECK(seatorch::data::read_data_file(dir / "plain.gz") == original);
  CHECK(seatorch::data::read_data_file(dir / "packed.bin") == original);
}

TEST_CASE("a file of several huge pages is read byte for byte", "[data]") {
  // Large enough that io::read_file advises at least one whole 2 MiB page of its buffer
  // (core/huge_pages.hpp), and not a multiple of any page: the hint must change no byte.
  seatorch::test::ScratchDir dir;
  const Bytes original = sample_bytes((std::size_t{5} << 20) + 4097);
  seatorch::test::write_file(dir / "large.bin", original);
  const Bytes read = seatorch::data::read_data_file(dir / "large.bin");
  REQUIRE(read.size() == original.size());
  const auto diff = std::mismatch(read.begin(), read.end(), original.begin());
  INFO("first difference at byte " << (diff.first - read.begin()));
  CHECK(diff.first == read.end());
}

TEST_CASE("concatenated gzip members decompress to the concatenation", "[data]") {
  const Bytes a = sample_bytes(3000);
  const Bytes b(500, 42);
  Bytes both = seatorch::test::gzip(a);
  const Bytes gz_b = seatorch::test::gzip(b);
  both.insert(both.end(), gz_b.begin(), gz_b.end());
  Bytes expected = a;
  expected.resize(a.size() + b.size(), 42);  // (GCC 12 misreads insert() here as out of bounds)
  CHECK(seatorch::data::gunzip(both, "two-members.gz") == expected);
}

TEST_CASE("gunzip stops at its cap instead of trusting the stream", "[data]") {
  const Bytes zeros(100'000, 0);  // compresses to about 100 bytes: a small "zip bomb"
  const Bytes packed = seatorch::test::gzip(zeros);
  CHECK(seatorch::data::gunzip(packed, "bomb.gz", zeros.size()) == zeros);  // exactly at the cap: fine
  CHECK_THROWS_WITH(seatorch::data::gunzip(packed, "bomb.gz", zeros.size() - 1),
                    Contains("bomb.gz") && Contains("more than 99999 bytes"));
}

TEST_CASE("corrupt and truncated gzip streams are clean InputErrors", "[data]") {
  const Bytes packed = seatorch::test::gzip(sample_bytes(20'000));
  SECTION("truncated") {
    const Bytes cut(packed.begin(), packed.begin() + static_cast<std::ptrdiff_t>(packed.size() / 2));
    CHECK_THROWS_WITH(seatorch::data::gunzip(cut, "cut.gz"), Contains("cut.gz") && Contains("ends early"));
  }
  SECTION("only the magic") {
    CHECK_THROWS_WITH(seatorch::data::gunzip(Bytes{0x1f, 0x8b}, "magic.gz"),
                      Contains("magic.gz") && Contains("ends early"));
  }
  SECTION("flipped bytes in the deflate data") {
    Bytes bad = packed;
    for (std::size_t i = 20; i < 40; ++i) bad[i] ^= 0x5a;
    CHECK_THROWS_WITH(seatorch::data::gunzip(bad, "flipped.gz"), Contains("flipped.gz") && Contains("corrupt gzip"));
  }
  SECTION("a wrong CRC in the trailer") {
    Bytes bad = packed;
    bad[bad.size() - 8] ^= 1;
    CHECK_THROWS_WITH(seatorch::data::gunzip(bad, "crc.gz"), Contains("crc.gz") && Contains("corrupt gzip"));
  }
  SECTION("junk after the stream") {
    Bytes bad = packed;
    bad.push_back(0);
    CHECK_THROWS_WITH(seatorch::data::gunzip(bad, "junk.gz"), Contains("junk.gz") && Contains("1 unexpected bytes"));
  }
}

TEST_CASE("read_data_file refuses missing files, directories and oversized files", "[data]") {
  seatorch::test::ScratchDir dir;
  CHECK_THROWS_WITH(seatorch::data::read_data_file(dir / "nope"), Contains("nope") && Contains("no such file"));
  CHECK_THROWS_WITH(seatorch::data::read_data_file(dir.path()), Contains("not a regular file"));
  seatorch::test::write_file(dir / "big", sample_bytes(2048));
  CHECK_THROWS_WITH(seatorch::data::read_data_file(dir / "big", 1024),
                    Contains("big") && Contains("2048 bytes is more than 1024 bytes"));
  CHECK(seatorch::data::read_data_file(dir / "big", 2048).size() == 2048);
}

TEST_CASE("describe_bytes names round sizes in words", "[data]") {
  CHECK(seatorch::io::describe_bytes(seatorch::data::kMaxDataFileBytes) == "1 GiB");
  CHECK(seatorch::io::describe_bytes(std::size_t{16} << 20) == "16 MiB");
  CHECK(seatorch::io::describe_bytes(1234) == "1234 bytes");
}
