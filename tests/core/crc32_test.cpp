// CRC-32 against published check values and a bitwise loop written from the definition,
// in one piece, in pieces, and continued across calls.
#include "seatorch/core/crc32.hpp"

#include "seatorch/core/rng.hpp"

#include <catch2/catch.hpp>

#include <string_view>
#include <vector>

namespace core = seatorch::core;

namespace {

std::vector<std::uint8_t> bytes_of(std::string_view text) { return {text.begin(), text.end()}; }

// CRC-32 bit by bit: reflected, initial value and final XOR all ones.
std::uint32_t crc32_bitwise(const std::vector<std::uint8_t>& bytes) {
  std::uint32_t c = 0xFFFF'FFFFU;
  for (const std::uint8_t b : bytes) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c & 1U) ? (c >> 1) ^ core::kCrc32Polynomial : c >> 1;
  }
  return ~c;
}

}  // namespace

TEST_CASE("crc32 gives the published check values", "[core]") {
  CHECK(core::kCrc32Polynomial == 0xEDB88320U);              // x^32 + x^26 + ... + 1, reflected
  CHECK(core::crc32(bytes_of("123456789")) == 0xCBF43926U);  // the catalogue's check value
  CHECK(core::crc32({}) == 0U);
  CHECK(core::crc32(bytes_of("a")) == 0xE8B7BE43U);
  CHECK(core::crc32(bytes_of("abc")) == 0x352441C2U);
  CHECK(core::crc32(bytes_of("The quick brown fox jumps over the lazy dog")) == 0x414FA339U);
  CHECK(core::crc32(std::vector<std::uint8_t>(32, 0x00)) == 0x190A55ADU);
  CHECK(core::crc32(std::vector<std::uint8_t>(32, 0xFF)) == 0xFF6CAB0BU);
}

TEST_CASE("crc32 matches a bitwise reference whole, continued and in pieces", "[core]") {
  core::Rng rng(1);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::uint8_t> bytes(rng.below(300));
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng.below(256));
    const std::size_t cut = bytes.empty() ? 0 : rng.below(bytes.size());
    const std::span<const std::uint8_t> all(bytes);
    INFO("trial " << trial << " size " << bytes.size() << " cut " << cut);
    const std::uint32_t expected = crc32_bitwise(bytes);
    REQUIRE(core::crc32(all) == expected);
    REQUIRE(core::crc32(all.subspan(cut), core::crc32(all.first(cut))) == expected);
    core::Crc32 pieces;
    pieces.update(all.first(cut));
    for (const std::uint8_t b : all.subspan(cut)) pieces.update(b);
    REQUIRE(pieces.value() == expected);
  }
  CHECK(core::Crc32{}.value() == 0U);  // no bytes yet
}
