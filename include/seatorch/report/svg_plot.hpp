// SVG charts for training reports: line charts (loss and accuracy curves over epochs) and
// a confusion-matrix heatmap. Each function returns a complete, standalone SVG document
// as a string that opens in any browser; the caller writes it (atomically) to a file.
//
// Deliberately small: fixed layout and palette, linear axes only, no fonts embedded (the
// viewer's sans-serif), no scripting. Hovering a cell or point shows its exact value
// through SVG <title> elements.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::report {

struct Series {
  std::string name;       // shown in the legend
  std::vector<double> y;  // one value per point; a non-finite value leaves a gap
  std::vector<double> x;  // same length as y; empty: 1, 2, 3, ... (epochs)
};

struct LineChart {
  std::string title;
  std::string x_label = "epoch";
  std::string y_label;
  std::vector<Series> series;
};

// The chart as an SVG document. Axes span the finite values of all series, extended to
// round tick values. Throws std::invalid_argument when a series' x and y differ in length.
std::string line_chart_svg(const LineChart& chart);

// A classes x classes heatmap: counts (classes, classes), row = true class, column =
// predicted class. Each cell shows its count; its shade grows with the count's share of
// its row (so the diagonal reads as per-class accuracy whatever the class sizes), on a
// square-root scale so that small confusions stay visible. `class_names`
// labels the axes (empty: 0, 1, 2, ...). Throws std::invalid_argument when the sizes
// disagree.
std::string confusion_matrix_svg(std::span<const std::size_t> counts, std::size_t classes, std::string_view title,
                                 std::span<const std::string> class_names = {});

}  // namespace seatorch::report
