// parse_pnm(): header tokens with their limits, then an exact-length sample block.
#include "seatorch/image/pnm.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/io/atomic_file.hpp"

#include <fmt/format.h>

#include <string>

namespace seatorch::image {
namespace {

// Widths and heights are at most kMaxImageSide and maxvals at most 65535: five digits, so a
// longer number is refused before it could overflow anything.
constexpr std::size_t kMaxNumberDigits = 5;
constexpr std::size_t kMaxSampleValue = 65535;

bool is_space(std::uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
bool is_digit(std::uint8_t c) { return c >= '0' && c <= '9'; }

// Reads the header's numbers in order, skipping whitespace and `#` comments before each.
class HeaderReader {
 public:
  HeaderReader(std::span<const std::uint8_t> bytes, std::string_view source) : bytes_(bytes), source_(source) {}

  std::size_t number(std::string_view what) {
    skip_space_and_comments();
    if (pos_ == bytes_.size()) throw core::input_error("{}: the PNM header ends before the {}", source_, what);
    if (!is_digit(bytes_[pos_])) {
      const char found = static_cast<char>(bytes_[pos_]);
      throw core::input_error("{}: expected the {} as a decimal number in the PNM header, found '{}'", source_, what,
                              core::printable(std::string_view(&found, 1)));
    }
    std::size_t value = 0;
    std::size_t digits = 0;
    for (; pos_ < bytes_.size() && is_digit(bytes_[pos_]); ++pos_, ++digits) {
      if (digits == kMaxNumberDigits) {
        throw core::input_error("{}: the {} in the PNM header has more than {} digits", source_, what,
                                kMaxNumberDigits);
      }
      value = value * 10 + (bytes_[pos_] - '0');
    }
    return value;
  }

  // The single whitespace byte that ends the header; returns the offset of the first sample.
  std::size_t end_of_header() {
    if (pos_ == bytes_.size() || !is_space(bytes_[pos_])) {
      throw core::input_error("{}: the PNM header must end with one whitespace byte after the maxval", source_);
    }
    return pos_ + 1;
  }

 private:
  void skip_space_and_comments() {
    while (pos_ < bytes_.size()) {
      if (is_space(bytes_[pos_])) {
        ++pos_;
      } else if (bytes_[pos_] == '#') {
        while (pos_ < bytes_.size() && bytes_[pos_] != '\n' && bytes_[pos_] != '\r') ++pos_;
      } else {
        return;
      }
    }
  }

  std::span<const std::uint8_t> bytes_;
  std::string_view source_;
  std::size_t pos_ = 2;  // after the magic number
};

void check_side(std::size_t value, std::string_view what, std::string_view source) {
  if (value == 0 || value > kMaxImageSide) {
    throw core::input_error("{}: a {} of {} pixels is outside 1..{}, the limit for an image", source, what, value,
                            kMaxImageSide);
  }
}

}  // namespace

bool is_pnm(std::span<const std::uint8_t> bytes) {
  return bytes.size() >= 2 && bytes[0] == 'P' && (bytes[1] == '5' || bytes[1] == '6');
}

GrayImage parse_pnm(std::span<const std::uint8_t> bytes, std::string_view source) {
  if (!is_pnm(bytes)) throw core::input_error("{}: not a binary PGM or PPM file (expected 'P5' or 'P6' first)", source);
  const std::size_t channels = bytes[1] == '6' ? 3 : 1;
  HeaderReader header(bytes, source);
  GrayImage image;
  image.width = header.number("width");
  check_side(image.width, "width", source);
  image.height = header.number("height");
  check_side(image.height, "height", source);
  const std::size_t maxval = header.number("maxval");
  if (maxval == 0 || maxval > kMaxSampleValue) {
    throw core::input_error("{}: a maxval of {} is outside 1..{}", source, maxval, kMaxSampleValue);
  }
  const std::size_t first = header.end_of_header();
  const std::size_t sample_bytes = maxval > 255 ? 2 : 1;
  const std::size_t pixels = image.width * image.height;
  const std::size_t expected = pixels * channels * sample_bytes;
  const std::size_t present = bytes.size() - first;
  if (present < expected) {
    throw core::input_error("{}: truncated: {} bytes of pixel data where {} x {} needs {}", source, present,
                            image.width, image.height, expected);
  }
  if (present > expected) {
    throw core::input_error("{}: {} bytes after the pixel data (one image per file, nothing after it)", source,
                            present - expected);
  }

  const std::uint8_t* sample = bytes.data() + first;
  // The next sample, s in 0..maxval -> round(255 s / maxval) in integers.
  const auto next = [&]() -> std::uint32_t {
    std::size_t s = *sample++;
    if (sample_bytes == 2) s = (s << 8) | *sample++;
    if (s > maxval) {
      throw core::input_error("{}: a sample of {} at byte {} is above the maxval {}", source, s,
                              static_cast<std::size_t>(sample - bytes.data()) - sample_bytes, maxval);
    }
    return static_cast<std::uint32_t>((s * 255 + maxval / 2) / maxval);
  };
  image.pixels.resize(pixels);
  for (std::uint8_t& p : image.pixels) {
    if (channels == 1) {
      p = static_cast<std::uint8_t>(next());
    } else {
      const std::uint32_t r = next();
      const std::uint32_t g = next();
      const std::uint32_t b = next();
      p = static_cast<std::uint8_t>((77 * r + 150 * g + 29 * b) >> 8);
    }
  }
  return image;
}

std::vector<std::uint8_t> pgm_bytes(const GrayImage& image) {
  const std::string header = fmt::format("P5\n{} {}\n255\n", image.width, image.height);
  std::vector<std::uint8_t> bytes(header.begin(), header.end());
  bytes.insert(bytes.end(), image.pixels.begin(), image.pixels.end());
  return bytes;
}

void write_pgm(const std::filesystem::path& path, const GrayImage& image) {
  io::write_file_atomic(path, pgm_bytes(image));
}

}  // namespace seatorch::image
