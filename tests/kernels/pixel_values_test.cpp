// The pixel loop: the definition against the division written out here, for every byte value,
// and every build this CPU runs against that division bit for bit, on spans of every length
// around the vector widths and starting at every offset within one vector.
#include "seatorch/kernels/pixel_values.hpp"

#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <vector>

namespace k = seatorch::kernels;

namespace {

// The oracle: the division a float model's pixel is defined by, for byte b.
float divided(std::uint8_t b) { return static_cast<float>(b) / 255.0f; }

}  // namespace

TEST_CASE("pixel_value is p / 255 for every byte, 0 and 1 at the ends", "[kernels]") {
  for (unsigned b = 0; b < 256; ++b) {
    const auto p = static_cast<std::uint8_t>(b);
    INFO("byte " << b << ": " << k::pixel_value(p) << " vs " << divided(p));
    REQUIRE(std::bit_cast<std::uint32_t>(k::pixel_value(p)) == std::bit_cast<std::uint32_t>(divided(p)));
  }
  CHECK(k::pixel_value(0) == 0.0f);
  CHECK(k::pixel_value(255) == 1.0f);
}

TEST_CASE("every pixel loop build converts every byte as the division does, at any length and offset", "[kernels]") {
  // Every byte value, repeated at shifting phases so that each lands in every lane.
  std::vector<std::uint8_t> bytes(3 * 256 + 40);  // (n)
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 7 + i / 256);
  for (const k::PixelKernel& kernel : k::pixel_kernels()) {
    for (std::size_t offset = 0; offset < 8; ++offset) {
      for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{9},
                                  std::size_t{31}, std::size_t{33}, std::size_t{784}}) {
        const std::span<const std::uint8_t> in = std::span<const std::uint8_t>(bytes).subspan(offset, n);
        std::vector<float> out(n + 1, -1.0f);  // (n + 1): one sentinel past the end
        kernel.run(in, std::span<float>(out).first(n));
        for (std::size_t i = 0; i < n; ++i) {
          if (std::bit_cast<std::uint32_t>(out[i]) != std::bit_cast<std::uint32_t>(divided(in[i]))) {
            FAIL(kernel.name << " at offset " << offset << ", length " << n << ": element " << i << " (byte "
                             << int{in[i]} << ") is " << out[i] << ", the division gives " << divided(in[i]));
          }
        }
        REQUIRE(out[n] == -1.0f);
      }
    }
  }
}
