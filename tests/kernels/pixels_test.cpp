// The pixel kernel against its specification, data::pixel_value (p / 255, one division per
// value): every byte value, bit for bit, at every offset of an eight-wide step and with
// every tail length, so both the vector steps and the scalar rest are covered.
#include "seatorch/kernels/pixels.hpp"

#include "seatorch/data/dataset.hpp"

#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <vector>

namespace k = seatorch::kernels;

TEST_CASE("pixel_values gives p / 255 bit for bit for every byte and every tail", "[kernels]") {
  INFO("kernel " << k::pixel_kernel());
  for (std::size_t offset = 0; offset < 8; ++offset) {
    for (std::size_t tail = 0; tail < 17; ++tail) {
      const std::size_t n = 256 + tail;
      std::vector<std::uint8_t> pixels(offset + n);
      for (std::size_t i = 0; i < n; ++i) pixels[offset + i] = static_cast<std::uint8_t>((i * 73 + offset) % 256);
      std::vector<float> out(n + 1, -1.0f);
      k::pixel_values(std::span<const std::uint8_t>(pixels).subspan(offset), std::span<float>(out).first(n));
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint8_t p = pixels[offset + i];
        const float expected = seatorch::data::pixel_value(p);
        INFO("offset " << offset << ", length " << n << ", element " << i << ": pixel " << int(p) << " gave " << out[i]
                       << ", expected " << expected);
        REQUIRE(std::bit_cast<std::uint32_t>(out[i]) == std::bit_cast<std::uint32_t>(expected));
      }
      REQUIRE(out[n] == -1.0f);  // nothing written past the end
    }
  }
}
