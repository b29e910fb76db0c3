// A CSV data set for `--dataset csv --csv FILE`: a header row, then one sample per row of
// numeric features and one integer label column.
//
// Format: comma-separated; fields may be double-quoted (a quoted field may hold commas,
// "" is a quote, but not line breaks); spaces around fields are ignored; blank lines are
// skipped; CRLF line ends and a UTF-8 byte-order mark are accepted. Features are floats
// and must be finite; labels are integers in [0, kCsvMaxClasses); classes = max label + 1.
// The file may be gzip-compressed (detected by content). Every error names the file, the
// line and the column. Deliberately not supported: other separators, missing values,
// categorical features, multi-line fields.
#pragma once

#include "seatorch/data/dataset.hpp"

#include <cstddef>
#include <filesystem>
#include <string_view>

namespace seatorch::data {

// Limits, so that a hostile file cannot ask for unbounded memory or time.
inline constexpr std::size_t kCsvMaxLineBytes = std::size_t{1} << 20;  // 1 MiB per line
inline constexpr std::size_t kCsvMaxRows = 10'000'000;                 // data rows
inline constexpr std::size_t kCsvMaxClasses = 10'000;                  // labels 0..9999

// Parses CSV text read from `name` (for messages). `label_col` is a header name, or else a
// 0-based column index; empty means the last column. Throws InputError on malformed input.
Dataset parse_csv(std::string_view text, std::string_view name, std::string_view label_col);

// Reads and parses the CSV file at `path` (at most kMaxDataFileBytes, raw or gzip).
Dataset read_csv(const std::filesystem::path& path, std::string_view label_col);

}  // namespace seatorch::data
