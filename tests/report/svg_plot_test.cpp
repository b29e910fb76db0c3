// SVG plots: well-formed markup (every tag closed, in order), the expected number of
// elements, and data placed where the axes say.
#include "seatorch/report/svg_plot.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using Catch::Matchers::Contains;

namespace {

// Checks that tags nest and close properly; returns "" or what is wrong.
std::string tag_problem(const std::string& svg) {
  std::vector<std::string> open;
  std::size_t pos = 0;
  std::size_t elements = 0;
  while ((pos = svg.find('<', pos)) != std::string::npos) {
    const std::size_t end = svg.find('>', pos);
    if (end == std::string::npos) return "unterminated tag at " + std::to_string(pos);
    const std::string tag = svg.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    if (tag.starts_with("?")) continue;  // the XML declaration
    if (tag.find('<') != std::string::npos) return "'<' inside a tag: " + tag;
    if (tag.starts_with("/")) {
      if (open.empty() || open.back() != tag.substr(1)) return "unexpected </" + tag.substr(1) + ">";
      open.pop_back();
      continue;
    }
    ++elements;
    if (tag.ends_with("/")) continue;
    open.push_back(tag.substr(0, tag.find_first_of(" \n")));
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  if (elements == 0 || svg.find("<svg ") == std::string::npos) return "no svg element";
  return {};
}

std::size_t count_of(const std::string& svg, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t pos = 0; (pos = svg.find(needle, pos)) != std::string::npos; pos += needle.size()) ++n;
  return n;
}

// The numeric attribute `name` of the first element with class `cls`.
double attribute(const std::string& svg, const std::string& cls, const std::string& name) {
  const std::size_t at = svg.find("class=\"" + cls + "\"");
  if (at == std::string::npos) throw std::runtime_error("no element of class " + cls);
  const std::size_t start = svg.rfind('<', at);
  const std::size_t end = svg.find('>', at);
  std::smatch m;
  const std::string tag = svg.substr(start, end - start);
  if (!std::regex_search(tag, m, std::regex(" " + name + "=\"([-0-9.]+)\""))) {
    throw std::runtime_error("no " + name + " on " + cls);
  }
  return std::stod(m[1]);
}

struct Point {
  double x, y;
};

std::vector<std::vector<Point>> polylines(const std::string& svg) {
  std::vector<std::vector<Point>> lines;
  const std::regex re("<polyline [^>]*points=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) {
    std::vector<Point> points;
    std::istringstream in((*it)[1].str());
    std::string pair;
    while (in >> pair) {
      const std::size_t comma = pair.find(',');
      points.push_back({std::stod(pair.substr(0, comma)), std::stod(pair.substr(comma + 1))});
    }
    lines.push_back(points);
  }
  return lines;
}

}  // namespace

TEST_CASE("a line chart is well-formed with one polyline per series inside the plot area", "[report]") {
  seatorch::report::LineChart chart;
  chart.title = "loss <train & test>";
  chart.y_label = "cross-entropy";
  chart.series = {{"train", {2.3, 0.9, 0.5, 0.3, 0.2}, {}}, {"test \"held out\"", {2.1, 1.0, 0.6, 0.45, 0.4}, {}}};
  const std::string svg = seatorch::report::line_chart_svg(chart);
  INFO(svg);
  CHECK(tag_problem(svg).empty());
  CHECK_THAT(svg, Contains("loss &lt;train &amp; test&gt;") && Contains("test &quot;held out&quot;"));
  CHECK(count_of(svg, "class=\"series\"") == 2);
  CHECK(count_of(svg, "class=\"point\"") == 10);
  CHECK(count_of(svg, "class=\"legend\"") == 2);
  CHECK(count_of(svg, "class=\"xtick\"") >= 3);
  CHECK(count_of(svg, "class=\"ytick\"") >= 3);

  const double left = attribute(svg, "plot-area", "x");
  const double top = attribute(svg, "plot-area", "y");
  const double right = left + attribute(svg, "plot-area", "width");
  const double bottom = top + attribute(svg, "plot-area", "height");
  const auto lines = polylines(svg);
  REQUIRE(lines.size() == 2);
  for (std::size_t s = 0; s < 2; ++s) {
    REQUIRE(lines[s].size() == 5);
    for (std::size_t i = 0; i < 5; ++i) {
      INFO("series " << s << " point " << i << " at " << lines[s][i].x << "," << lines[s][i].y);
      CHECK(lines[s][i].x >= left);
      CHECK(lines[s][i].x <= right);
      CHECK(lines[s][i].y >= top);
      CHECK(lines[s][i].y <= bottom);
      if (i > 0) {
        CHECK(lines[s][i].x > lines[s][i - 1].x);  // epochs go right
        CHECK(lines[s][i].y > lines[s][i - 1].y);  // falling loss goes down the screen
      }
    }
  }
  // The same epoch has the same x in both series; a larger value is higher up.
  CHECK(lines[0][2].x == lines[1][2].x);
  CHECK(lines[0][0].y < lines[1][0].y);  // 2.3 above 2.1
}

TEST_CASE("a value maps linearly between the axis ticks", "[report]") {
  seatorch::report::LineChart chart;
  chart.series = {{"acc", {0.0, 0.5, 1.0}, {}}};
  const std::string svg = seatorch::report::line_chart_svg(chart);
  const auto line = polylines(svg).at(0);
  REQUIRE(line.size() == 3);
  // Equal steps in value are equal steps on screen, for x (epochs 1, 2, 3) and y.
  CHECK(std::abs((line[1].y - line[0].y) - (line[2].y - line[1].y)) < 0.11);
  CHECK(std::abs((line[1].x - line[0].x) - (line[2].x - line[1].x)) < 0.11);
  CHECK_THAT(svg, Contains(">0.0</text>") && Contains(">1.0</text>"));
  // Epochs are integers: the x ticks are too.
  CHECK_THAT(svg, Contains(">1</text>") && Contains(">3</text>") && !Contains(">1.5</text>"));
}

TEST_CASE("a non-finite value leaves a gap and odd inputs still give a valid chart", "[report]") {
  seatorch::report::LineChart chart;
  chart.series = {{"loss", {1.0, NAN, 0.5, 0.4}, {}}};
  std::string svg = seatorch::report::line_chart_svg(chart);
  CHECK(tag_problem(svg).empty());
  const auto lines = polylines(svg);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].size() == 1);
  CHECK(lines[1].size() == 2);

  for (const auto& series : std::vector<std::vector<seatorch::report::Series>>{
           {}, {{"one", {0.7}, {}}}, {{"flat", {0.0, 0.0}, {}}}, {{"x", {1, 2}, {0.5, 0.25}}}}) {
    chart.series = series;
    svg = seatorch::report::line_chart_svg(chart);
    INFO(svg);
    CHECK(tag_problem(svg).empty());
    CHECK(svg.find("nan") == std::string::npos);
    CHECK(svg.find("inf") == std::string::npos);
  }
  chart.series = {{"bad", {1, 2}, {1}}};
  CHECK_THROWS_AS(seatorch::report::line_chart_svg(chart), std::invalid_argument);
}

TEST_CASE("a confusion matrix has one shaded numbered cell per pair of classes", "[report]") {
  constexpr std::size_t k = 3;
  const std::vector<std::size_t> counts{50, 2,  0,  //
                                        1,  40, 9,  //
                                        0,  0,  7};
  const std::vector<std::string> names{"cat", "dog", "<bird>"};
  const std::string svg = seatorch::report::confusion_matrix_svg(counts, k, "confusion", names);
  INFO(svg);
  CHECK(tag_problem(svg).empty());
  CHECK(count_of(svg, "class=\"cell\"") == k * k);
  CHECK(count_of(svg, "class=\"count\"") == k * k);
  CHECK(count_of(svg, "class=\"row-label\"") == k);
  CHECK(count_of(svg, "class=\"col-label\"") == k);
  CHECK_THAT(svg, Contains("&lt;bird&gt;") && Contains("predicted class") && Contains("true class"));
  // Cell numbers in row-major order.
  const std::regex count_re("class=\"count\"[^>]*>([0-9]+)</text>");
  std::vector<std::size_t> shown;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), count_re); it != std::sregex_iterator(); ++it) {
    shown.push_back(std::stoul((*it)[1].str()));
  }
  CHECK(shown == counts);
  // A full row's only cell is the darkest shade; an empty cell is white.
  CHECK_THAT(
      svg, Contains("fill=\"#08306b\" stroke=\"#cccccc\"><title>true &lt;bird&gt;, predicted &lt;bird&gt;: 7 (100.0%"));
  CHECK_THAT(svg, Contains("fill=\"#ffffff\" stroke=\"#cccccc\"><title>true cat, predicted &lt;bird&gt;: 0 (0.0%"));
  CHECK_THROWS_AS(seatorch::report::confusion_matrix_svg(counts, 2, "x"), std::invalid_argument);
  CHECK_THROWS_AS(seatorch::report::confusion_matrix_svg(counts, 3, "x", std::vector<std::string>{"a"}),
                  std::invalid_argument);
}

TEST_CASE("a 10-class confusion matrix with default labels", "[report]") {
  std::vector<std::size_t> counts(100, 1);
  for (std::size_t i = 0; i < 10; ++i) counts[i * 11] = 90;
  const std::string svg = seatorch::report::confusion_matrix_svg(counts, 10, "MNIST test");
  CHECK(tag_problem(svg).empty());
  CHECK(count_of(svg, "class=\"cell\"") == 100);
  CHECK_THAT(svg, Contains(">9</text>") && Contains(">90</text>"));
}
