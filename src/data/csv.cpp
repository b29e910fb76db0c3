// The CSV reader: line splitting with quotes, label-column resolution, numeric parsing.
#include "seatorch/data/csv.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/data/data_file.hpp"

#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace seatorch::data {
namespace {

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
constexpr std::size_t kColumnsInMessages = 12;  // header names listed in an error

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Where a message points: "data.csv:17".
struct Location {
  std::string_view name;
  std::size_t line;
};

// Splits `line` into `fields`, reusing their storage (a large file has millions of fields);
// returns the number of fields.
std::size_t split_fields(std::string_view line, std::vector<std::string>& fields, Location at) {
  std::size_t count = 0;
  std::size_t pos = 0;
  for (;;) {
    if (count == fields.size()) fields.emplace_back();
    std::string& field = fields[count++];
    field.clear();
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    if (pos < line.size() && line[pos] == '"') {
      for (++pos;; ++pos) {
        if (pos >= line.size()) {
          throw core::input_error("{}:{}: field {} opens a quote that the line never closes", at.name, at.line, count);
        }
        if (line[pos] == '"') {
          if (pos + 1 < line.size() && line[pos + 1] == '"') {
            field.push_back('"');
            ++pos;
          } else {
            break;
          }
        } else {
          field.push_back(line[pos]);
        }
      }
      pos = line.find_first_not_of(" \t", pos + 1);
      if (pos == std::string_view::npos) return count;
      if (line[pos] != ',') {
        throw core::input_error("{}:{}: field {} has text after its closing quote", at.name, at.line, count);
      }
    } else {
      const std::size_t comma = std::min(line.find(',', pos), line.size());
      field.assign(trim(line.substr(pos, comma - pos)));
      pos = comma;
      if (pos == line.size()) return count;
    }
    ++pos;  // past the comma
  }
}

std::size_t resolve_label_column(const std::vector<std::string>& header, std::size_t columns,
                                 std::string_view label_col, std::string_view name) {
  if (label_col.empty()) return columns - 1;
  for (std::size_t i = 0; i < columns; ++i) {
    if (header[i] == label_col) return i;
  }
  std::size_t index = 0;
  const auto [end, ec] = std::from_chars(label_col.data(), label_col.data() + label_col.size(), index);
  if (ec == std::errc() && end == label_col.data() + label_col.size() && index < columns) return index;
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < std::min(columns, kColumnsInMessages); ++i)
    shown.push_back(core::printable(header[i], 32));
  throw core::option_error("label column",
                           "{}: label column '{}' is neither a header name nor an index 0..{}; "
                           "the columns are {}{}",
                           name, core::printable(label_col), columns - 1, fmt::join(shown, ", "),
                           columns > shown.size() ? ", ..." : "");
}

float parse_feature(std::string_view text, Location at, std::string_view column) {
  float value = 0.0f;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec == std::errc::invalid_argument || end != text.data() + text.size()) {
    throw core::input_error("{}:{}: column '{}': '{}' is not a number", at.name, at.line, core::printable(column),
                            core::printable(text));
  }
  if (ec == std::errc::result_out_of_range || !std::isfinite(value)) {
    throw core::input_error("{}:{}: column '{}': '{}' is not a finite float", at.name, at.line, core::printable(column),
                            core::printable(text));
  }
  return value;
}

std::int32_t parse_label(std::string_view text, Location at, std::string_view column) {
  std::int64_t value = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0 ||
      value >= static_cast<std::int64_t>(kCsvMaxClasses)) {
    throw core::input_error("{}:{}: label column '{}': '{}' is not a class label (an integer 0..{})", at.name, at.line,
                            core::printable(column), core::printable(text), kCsvMaxClasses - 1);
  }
  return static_cast<std::int32_t>(value);
}

}  // namespace

Dataset parse_csv(std::string_view text, std::string_view name, std::string_view label_col) {
  if (text.starts_with(kUtf8Bom)) text.remove_prefix(kUtf8Bom.size());
  std::vector<std::string> header;
  std::vector<std::string> fields;
  std::size_t columns = 0;
  std::size_t label = 0;
  std::int32_t max_label = -1;
  Dataset data;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const std::size_t newline = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(std::min(newline + 1, text.size()));
    ++line_no;
    const Location at{name, line_no};
    if (line.size() > kCsvMaxLineBytes) {
      throw core::input_error("{}:{}: the line is longer than {}, the limit for a CSV line", name, line_no,
                              io::describe_bytes(kCsvMaxLineBytes));
    }
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (trim(line).empty()) continue;

    if (columns == 0) {
      columns = split_fields(line, header, at);
      if (columns < 2) {
        throw core::input_error("{}:{}: the header has {} column; a data set needs at least one feature "
                                "and the label",
                                name, line_no, columns);
      }
      label = resolve_label_column(header, columns, label_col, name);
      data.features = columns - 1;
      continue;
    }
    const std::size_t count = split_fields(line, fields, at);
    if (count != columns) {
      throw core::input_error("{}:{}: {} fields, but the header has {} columns", name, line_no, count, columns);
    }
    if (data.size() == kCsvMaxRows) {
      throw core::input_error("{}:{}: more than {} data rows, the limit for a CSV data set", name, line_no,
                              kCsvMaxRows);
    }
    for (std::size_t c = 0; c < columns; ++c) {
      if (c != label) data.x.push_back(parse_feature(fields[c], at, header[c]));
    }
    data.y.push_back(parse_label(fields[label], at, header[label]));
    max_label = std::max(max_label, data.y.back());
  }
  if (columns == 0) throw core::input_error("{}: the file is empty, expected a header row and data rows", name);
  if (data.size() == 0) throw core::input_error("{}: no data rows after the header", name);
  data.classes = static_cast<std::size_t>(max_label) + 1;
  return data;
}

Dataset read_csv(const std::filesystem::path& path, std::string_view label_col) {
  const std::vector<std::uint8_t> bytes = read_data_file(path);
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  return parse_csv(text, path.string(), label_col);
}

}  // namespace seatorch::data
