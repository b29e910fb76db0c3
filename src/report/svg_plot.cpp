// SVG line charts and confusion-matrix heatmaps, written as text.
#include "seatorch/report/svg_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>

namespace seatorch::report {
namespace {

// Line chart layout, in SVG user units (pixels at 100% zoom).
constexpr double kWidth = 760;
constexpr double kHeight = 440;
constexpr double kLeft = 76;    // room for y tick labels and the y label
constexpr double kRight = 180;  // room for the legend
constexpr double kTop = 48;     // room for the title
constexpr double kBottom = 56;  // room for x tick labels and the x label
constexpr std::size_t kTargetTicks = 6;
constexpr std::size_t kMaxMarkers = 60;  // points get a marker only on short series

// matplotlib's "tab10" palette: distinct, and readable for most colour-blind viewers.
constexpr std::string_view kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                         "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

using Out = std::back_insert_iterator<std::string>;

// Text content and attribute values must not break the markup.
std::string escape(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void open_svg(Out out, double width, double height, std::string_view title) {
  fmt::format_to(out,
                 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
                 "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
                 "<title>{2}</title>\n"
                 "<rect class=\"background\" x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
                 "<text class=\"title\" x=\"{3}\" y=\"28\" text-anchor=\"middle\" font-size=\"16\" "
                 "font-weight=\"bold\">{2}</text>\n",
                 width, height, escape(title), width / 2);
}

// Round tick values covering [lo, hi]: steps of 1, 2 or 5 times a power of ten (at least
// 1 when `integer_steps`), about kTargetTicks of them.
struct Ticks {
  double first = 0;
  double step = 1;
  std::size_t count = 0;
  int decimals = 0;
  [[nodiscard]] double last() const { return first + step * static_cast<double>(count - 1); }
  [[nodiscard]] double at(std::size_t i) const { return first + step * static_cast<double>(i); }
};

Ticks nice_ticks(double lo, double hi, bool integer_steps) {
  if (!(hi > lo)) {  // one value (or none): a unit-wide window around it
    const double pad = lo == 0 ? 1.0 : std::abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const double raw = (hi - lo) / static_cast<double>(kTargetTicks - 1);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double normalized = raw / magnitude;
  const double factor = normalized <= 1 ? 1 : normalized <= 2 ? 2 : normalized <= 5 ? 5 : 10;
  Ticks ticks;
  ticks.step = factor * magnitude;
  if (integer_steps) ticks.step = std::max(1.0, std::round(ticks.step));
  ticks.first = std::floor(lo / ticks.step) * ticks.step;
  const double last = std::ceil(hi / ticks.step) * ticks.step;
  ticks.count = static_cast<std::size_t>(std::llround((last - ticks.first) / ticks.step)) + 1;
  ticks.decimals = std::max(0, -static_cast<int>(std::floor(std::log10(ticks.step) + 1e-9)));
  return ticks;
}

std::string tick_label(double value, int decimals) {
  if (std::abs(value) < 1e-12) value = 0;  // no "-0.0"
  return fmt::format("{:.{}f}", value, decimals);
}

// Maps data values to pixels along one axis.
struct Scale {
  double data_lo, data_hi, pixel_lo, pixel_hi;
  [[nodiscard]] double operator()(double v) const {
    return pixel_lo + (v - data_lo) / (data_hi - data_lo) * (pixel_hi - pixel_lo);
  }
};

double x_value(const Series& s, std::size_t i) { return s.x.empty() ? static_cast<double>(i + 1) : s.x[i]; }

bool point_ok(const Series& s, std::size_t i) { return std::isfinite(s.y[i]) && std::isfinite(x_value(s, i)); }

void draw_axes(Out out, const Ticks& xt, const Scale& sx, const Ticks& yt, const Scale& sy, const LineChart& chart) {
  const double left = kLeft, right = kWidth - kRight, top = kTop, bottom = kHeight - kBottom;
  for (std::size_t i = 0; i < yt.count; ++i) {
    const double y = sy(yt.at(i));
    fmt::format_to(out,
                   "<line class=\"grid\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" "
                   "stroke=\"#e0e0e0\"/>\n"
                   "<text class=\"ytick\" x=\"{3:.1f}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
                   left, y, right, left - 6, y + 4, tick_label(yt.at(i), yt.decimals));
  }
  for (std::size_t i = 0; i < xt.count; ++i) {
    const double x = sx(xt.at(i));
    fmt::format_to(out,
                   "<line class=\"tick\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
                   "stroke=\"black\"/>\n"
                   "<text class=\"xtick\" x=\"{0:.1f}\" y=\"{3:.1f}\" text-anchor=\"middle\">{4}</text>\n",
                   x, bottom, bottom + 5, bottom + 18, tick_label(xt.at(i), xt.decimals));
  }
  fmt::format_to(out,
                 "<rect class=\"plot-area\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
                 "fill=\"none\" stroke=\"black\"/>\n"
                 "<text class=\"xlabel\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n"
                 "<text class=\"ylabel\" transform=\"translate({:.1f},{:.1f}) rotate(-90)\" "
                 "text-anchor=\"middle\">{}</text>\n",
                 left, top, right - left, bottom - top, (left + right) / 2, kHeight - 14, escape(chart.x_label), 18.0,
                 (top + bottom) / 2, escape(chart.y_label));
}

void draw_series(Out out, const Series& s, std::string_view colour, const Scale& sx, const Scale& sy) {
  // One polyline per run of finite points, so that a NaN leaves a visible gap.
  std::string points;
  const auto flush = [&] {
    if (!points.empty()) {
      fmt::format_to(out,
                     "<polyline class=\"series\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" "
                     "points=\"{}\"/>\n",
                     colour, points);
    }
    points.clear();
  };
  for (std::size_t i = 0; i < s.y.size(); ++i) {
    if (!point_ok(s, i)) {
      flush();
      continue;
    }
    if (!points.empty()) points += ' ';
    points += fmt::format("{:.1f},{:.1f}", sx(x_value(s, i)), sy(s.y[i]));
  }
  flush();
  if (s.y.size() > kMaxMarkers) return;
  for (std::size_t i = 0; i < s.y.size(); ++i) {
    if (!point_ok(s, i)) continue;
    fmt::format_to(out,
                   "<circle class=\"point\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\">"
                   "<title>{} at {}: {}</title></circle>\n",
                   sx(x_value(s, i)), sy(s.y[i]), colour, escape(s.name), x_value(s, i), s.y[i]);
  }
}

void draw_legend(Out out, const std::vector<Series>& series) {
  const double x = kWidth - kRight + 16;
  for (std::size_t k = 0; k < series.size(); ++k) {
    const double y = kTop + 12 + 20 * static_cast<double>(k);
    fmt::format_to(out,
                   "<line class=\"legend-line\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" y2=\"{1:.1f}\" "
                   "stroke=\"{3}\" stroke-width=\"2\"/>\n"
                   "<text class=\"legend\" x=\"{4:.1f}\" y=\"{5:.1f}\">{6}</text>\n",
                   x, y, x + 22, kPalette[k % std::size(kPalette)], x + 28, y + 4, escape(series[k].name));
  }
}

// Confusion-matrix layout.
constexpr double kMatrixSide = 480;  // the grid's size for up to 10 classes
constexpr double kMinCell = 12;
constexpr double kMaxCell = 48;
constexpr double kMatrixLeft = 90;
constexpr double kMatrixTop = 56;
constexpr double kMatrixBottom = 60;
constexpr double kMatrixRight = 30;

// White (share 0) to dark blue (share 1). The square root lifts small shares, so that a
// 1% confusion is still visible next to a 98% diagonal.
double intensity(double share) { return std::sqrt(share); }

std::string shade(double share) {
  const double t = intensity(share);
  const auto mix = [&](int from, int to) { return static_cast<int>(std::lround(from + (to - from) * t)); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(0xff, 0x08), mix(0xff, 0x30), mix(0xff, 0x6b));
}

}  // namespace

std::string line_chart_svg(const LineChart& chart) {
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo;
  double y_lo = x_lo, y_hi = -x_lo;
  bool integer_x = true;
  for (const Series& s : chart.series) {
    if (!s.x.empty() && s.x.size() != s.y.size()) {
      throw std::invalid_argument(
          fmt::format("line_chart_svg: series '{}' has {} x and {} y values", s.name, s.x.size(), s.y.size()));
    }
    for (std::size_t i = 0; i < s.y.size(); ++i) {
      if (!point_ok(s, i)) continue;
      const double x = x_value(s, i);
      x_lo = std::min(x_lo, x);
      x_hi = std::max(x_hi, x);
      y_lo = std::min(y_lo, s.y[i]);
      y_hi = std::max(y_hi, s.y[i]);
      integer_x = integer_x && x == std::round(x);
    }
  }
  if (!(x_lo <= x_hi)) x_lo = x_hi = 1;  // no finite point: empty axes around 1
  if (!(y_lo <= y_hi)) y_lo = y_hi = 0;
  const Ticks xt = nice_ticks(x_lo, x_hi, integer_x);
  const Ticks yt = nice_ticks(y_lo, y_hi, false);
  const Scale sx{xt.first, xt.last(), kLeft, kWidth - kRight};
  const Scale sy{yt.first, yt.last(), kHeight - kBottom, kTop};

  std::string svg;
  const Out out(svg);
  open_svg(out, kWidth, kHeight, chart.title);
  draw_axes(out, xt, sx, yt, sy, chart);
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    draw_series(out, chart.series[k], kPalette[k % std::size(kPalette)], sx, sy);
  }
  draw_legend(out, chart.series);
  svg += "</svg>\n";
  return svg;
}

std::string confusion_matrix_svg(std::span<const std::size_t> counts, std::size_t classes, std::string_view title,
                                 std::span<const std::string> class_names) {
  if (classes == 0 || counts.size() != classes * classes) {
    throw std::invalid_argument(fmt::format("confusion_matrix_svg: {} counts for {} classes", counts.size(), classes));
  }
  if (!class_names.empty() && class_names.size() != classes) {
    throw std::invalid_argument(
        fmt::format("confusion_matrix_svg: {} names for {} classes", class_names.size(), classes));
  }
  const auto name = [&](std::size_t c) { return class_names.empty() ? std::to_string(c) : escape(class_names[c]); };
  const double cell = std::clamp(kMatrixSide / static_cast<double>(classes), kMinCell, kMaxCell);
  const double grid = cell * static_cast<double>(classes);
  const double width = kMatrixLeft + grid + kMatrixRight;
  const double height = kMatrixTop + grid + kMatrixBottom;
  const double font = std::clamp(cell * 0.3, 6.0, 13.0);

  std::string svg;
  const Out out(svg);
  open_svg(out, width, height, title);
  for (std::size_t t = 0; t < classes; ++t) {
    std::size_t row_total = 0;
    for (std::size_t p = 0; p < classes; ++p) row_total += counts[t * classes + p];
    const double y = kMatrixTop + cell * static_cast<double>(t);
    fmt::format_to(out, "<text class=\"row-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
                   kMatrixLeft - 6, y + cell / 2 + 4, name(t));
    for (std::size_t p = 0; p < classes; ++p) {
      const std::size_t count = counts[t * classes + p];
      const double share = row_total == 0 ? 0.0 : static_cast<double>(count) / static_cast<double>(row_total);
      const double x = kMatrixLeft + cell * static_cast<double>(p);
      fmt::format_to(out,
                     "<rect class=\"cell\" x=\"{0:.1f}\" y=\"{1:.1f}\" width=\"{2:.1f}\" height=\"{2:.1f}\" "
                     "fill=\"{3}\" stroke=\"#cccccc\"><title>true {4}, predicted {5}: {6} "
                     "({7:.1f}% of true {4})</title></rect>\n"
                     "<text class=\"count\" x=\"{8:.1f}\" y=\"{9:.1f}\" text-anchor=\"middle\" "
                     "font-size=\"{10:.1f}\" fill=\"{11}\">{6}</text>\n",
                     x, y, cell, shade(share), name(t), name(p), count, 100.0 * share, x + cell / 2,
                     y + cell / 2 + font / 3, font, intensity(share) > 0.6 ? "white" : "black");
    }
  }
  for (std::size_t p = 0; p < classes; ++p) {
    fmt::format_to(out, "<text class=\"col-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                   kMatrixLeft + cell * (static_cast<double>(p) + 0.5), kMatrixTop + grid + 16, name(p));
  }
  fmt::format_to(out,
                 "<text class=\"xlabel\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">predicted class</text>\n"
                 "<text class=\"ylabel\" transform=\"translate({:.1f},{:.1f}) rotate(-90)\" "
                 "text-anchor=\"middle\">true class</text>\n",
                 kMatrixLeft + grid / 2, kMatrixTop + grid + 40, 24.0, kMatrixTop + grid / 2);
  svg += "</svg>\n";
  return svg;
}

}  // namespace seatorch::report
