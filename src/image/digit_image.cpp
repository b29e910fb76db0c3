// prepare_digit(): orientation and background from the border, level stretch, crop, integer
// area-average scaling, center-of-mass placement (the steps of digit_image.hpp).
#include "seatorch/image/digit_image.hpp"

#include "seatorch/core/error.hpp"

#include <algorithm>
#include <cstdlib>

namespace seatorch::image {
namespace {

// MNIST fits each digit in 20 x 20 and centers it in 28 x 28.
constexpr std::size_t kMnistBox = 20;
constexpr std::size_t kMnistSide = 28;

// The outermost ring of pixels (every pixel of a picture one or two pixels wide or high).
std::vector<unsigned> border_pixels(const GrayImage& image) {
  std::vector<unsigned> border;
  for (std::size_t y = 0; y < image.height; ++y) {
    if (y == 0 || y + 1 == image.height) {
      for (std::size_t x = 0; x < image.width; ++x) border.push_back(image.at(x, y));
    } else {
      border.push_back(image.at(0, y));
      if (image.width > 1) border.push_back(image.at(image.width - 1, y));
    }
  }
  return border;
}

// The element at index size/2 in sorted order.
unsigned median(std::vector<unsigned> values) {
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

// One source pixel's share of an output pixel along an axis.
struct Share {
  std::size_t source;
  std::uint64_t weight;
};

// The area average along one axis, n source pixels onto m outputs. Output k covers source
// [k n/m, (k+1) n/m); in units of 1/m pixel that is [k n, (k+1) n), and source pixel x
// covers [x m, (x+1) m), so every overlap is an integer and the weights of an output sum to n.
std::vector<std::vector<Share>> area_shares(std::size_t n, std::size_t m) {
  std::vector<std::vector<Share>> shares(m);
  for (std::size_t k = 0; k < m; ++k) {
    const std::size_t lo = k * n;
    const std::size_t hi = (k + 1) * n;
    for (std::size_t x = lo / m; x * m < hi; ++x)
      shares[k].push_back({x, std::min(hi, (x + 1) * m) - std::max(lo, x * m)});
  }
  return shares;
}

// floor(a / b) for b > 0.
std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0 && a < 0) ? 1 : 0); }

// Where the scaled digit's top-left corner goes along one axis: its center of mass
// (sum of index * level / sum of level) on the pixel nearest to side / 2, inside the field.
std::size_t centered_offset(std::uint64_t moment, std::uint64_t mass, std::size_t length, std::size_t side) {
  // round(side/2 - moment/mass) = floor((side * mass - 2 moment + mass) / (2 mass))
  const auto s = static_cast<std::int64_t>(side);
  const auto m = static_cast<std::int64_t>(mass);
  const std::int64_t offset = floor_div(s * m - 2 * static_cast<std::int64_t>(moment) + m, 2 * m);
  return static_cast<std::size_t>(std::clamp<std::int64_t>(offset, 0, static_cast<std::int64_t>(side - length)));
}

}  // namespace

std::size_t square_input_side(std::size_t inputs, std::string_view model) {
  std::size_t side = 0;
  while ((side + 1) * (side + 1) <= inputs) ++side;
  if (side == 0 || side * side != inputs) {
    throw core::input_error("{} takes {} inputs, not a square picture (e.g. 784 = 28 x 28): it is not an image model",
                            model, inputs);
  }
  return side;
}

DigitInput prepare_digit(const GrayImage& image, std::size_t side, std::string_view source) {
  if (image.width == 0 || image.height == 0 || image.pixels.size() != image.width * image.height) {
    throw core::input_error("{}: an empty picture", source);
  }
  DigitInput digit;
  digit.side = side;

  // 1-2. Orientation and background level from the border.
  std::vector<unsigned> border = border_pixels(image);
  digit.inverted = median(border) > 127;
  const auto oriented = [&](std::uint8_t p) -> unsigned { return digit.inverted ? 255u - p : p; };
  for (unsigned& p : border) p = digit.inverted ? 255u - p : p;
  const unsigned middle = median(border);
  std::vector<unsigned> deviations;
  for (const unsigned p : border) deviations.push_back(p > middle ? p - middle : middle - p);
  digit.background = std::min(255u, middle + 3 * median(deviations));
  for (const std::uint8_t p : image.pixels) digit.ink_max = std::max(digit.ink_max, oriented(p));
  if (digit.ink_max < digit.background + kMinInkContrast) {
    throw core::input_error("{}: no digit found: the picture is blank (no pixel stands {} gray levels above its {} "
                            "background); draw the digit darker or crop the picture to it",
                            source, kMinInkContrast, digit.inverted ? "light" : "dark");
  }

  // 2-3. Stretched levels and the ink's bounding box.
  const unsigned range = digit.ink_max - digit.background;
  std::vector<std::uint8_t> level(image.pixels.size());  // (height, width)
  std::size_t x0 = image.width, y0 = image.height, x1 = 0, y1 = 0;
  for (std::size_t y = 0; y < image.height; ++y) {
    for (std::size_t x = 0; x < image.width; ++x) {
      const unsigned p = oriented(image.at(x, y));
      if (p <= digit.background) continue;
      level[y * image.width + x] = static_cast<std::uint8_t>(((p - digit.background) * 255 + range / 2) / range);
      x0 = std::min(x0, x);
      y0 = std::min(y0, y);
      x1 = std::max(x1, x + 1);
      y1 = std::max(y1, y + 1);
    }
  }
  digit.ink_x = x0;
  digit.ink_y = y0;
  digit.ink_width = x1 - x0;
  digit.ink_height = y1 - y0;

  // 4. Fit the box's longer side to 20/28 of the field, keeping the aspect ratio.
  const std::size_t box = std::max<std::size_t>(1, (side * kMnistBox + kMnistSide / 2) / kMnistSide);
  const std::size_t longer = std::max(digit.ink_width, digit.ink_height);
  const auto fit = [&](std::size_t length) { return std::max<std::size_t>(1, (length * box + longer / 2) / longer); };
  const std::size_t tw = fit(digit.ink_width);
  const std::size_t th = fit(digit.ink_height);
  digit.scaled_width = tw;
  digit.scaled_height = th;
  std::vector<std::uint8_t> crop(digit.ink_width * digit.ink_height);  // (ink_height, ink_width)
  for (std::size_t y = 0; y < digit.ink_height; ++y) {
    std::copy_n(level.begin() + static_cast<std::ptrdiff_t>((y0 + y) * image.width + x0), digit.ink_width,
                crop.begin() + static_cast<std::ptrdiff_t>(y * digit.ink_width));
  }
  // Along rows (ink_width -> tw), then along columns (ink_height -> th); the sums are
  // normalized once, by the whole area, at the end.
  const std::vector<std::vector<Share>> along_x = area_shares(digit.ink_width, tw);
  const std::vector<std::vector<Share>> along_y = area_shares(digit.ink_height, th);
  std::vector<std::uint64_t> across(digit.ink_height * tw);  // (ink_height, tw)
  for (std::size_t y = 0; y < digit.ink_height; ++y) {
    for (std::size_t k = 0; k < tw; ++k) {
      for (const Share& s : along_x[k]) across[y * tw + k] += s.weight * crop[y * digit.ink_width + s.source];
    }
  }
  std::vector<std::uint64_t> both(th * tw);  // (th, tw)
  for (std::size_t j = 0; j < th; ++j) {
    for (const Share& s : along_y[j]) {
      for (std::size_t k = 0; k < tw; ++k) both[j * tw + k] += s.weight * across[s.source * tw + k];
    }
  }
  const std::uint64_t area = static_cast<std::uint64_t>(digit.ink_width) * digit.ink_height;
  std::vector<std::uint8_t> scaled(tw * th);  // (th, tw)
  std::uint64_t mass = 0, moment_x = 0, moment_y = 0;
  for (std::size_t y = 0; y < th; ++y) {
    for (std::size_t x = 0; x < tw; ++x) {
      const auto v = static_cast<std::uint8_t>((both[y * tw + x] + area / 2) / area);
      scaled[y * tw + x] = v;
      mass += v;
      moment_x += static_cast<std::uint64_t>(v) * x;
      moment_y += static_cast<std::uint64_t>(v) * y;
    }
  }
  if (mass == 0) {
    throw core::input_error(
        "{}: no digit found: its {} x {} pixels of ink are too thin to survive scaling to {} x {}; crop "
        "the picture to the digit",
        source, digit.ink_width, digit.ink_height, tw, th);
  }

  // 5. Center of mass to the middle of the field.
  const std::size_t ox = centered_offset(moment_x, mass, tw, side);
  const std::size_t oy = centered_offset(moment_y, mass, th, side);
  digit.pixels.assign(side * side, 0);
  for (std::size_t y = 0; y < th; ++y) {
    std::copy_n(scaled.begin() + static_cast<std::ptrdiff_t>(y * tw), tw,
                digit.pixels.begin() + static_cast<std::ptrdiff_t>((oy + y) * side + ox));
  }
  return digit;
}

}  // namespace seatorch::image
