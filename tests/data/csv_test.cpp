// The CSV reader: the accepted format (quotes, CRLF, BOM, blank lines, label by name or
// index) and one clean InputError per kind of bad input, naming file, line and column.
#include "seatorch/data/csv.hpp"

#include "data_test_util.hpp"
#include "seatorch/core/error.hpp"

#include <catch2/catch.hpp>

#include <string>

using Catch::Matchers::Contains;

namespace {

std::string csv_error(std::string_view text, std::string_view label_col = {}) {
  try {
    (void)seatorch::data::parse_csv(text, "t.csv", label_col);
  } catch (const seatorch::core::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("CSV with the label in the last column by default", "[data]") {
  const seatorch::data::Dataset d = seatorch::data::parse_csv("a,b,label\n1,2.5,0\n-3,4e2,2\n", "t.csv", "");
  CHECK(d.features == 2);
  CHECK(d.classes == 3);
  CHECK(d.x == std::vector<float>{1.0f, 2.5f, -3.0f, 400.0f});
  CHECK(d.y == std::vector<std::int32_t>{0, 2});
}

TEST_CASE("CSV label column by name or by 0-based index", "[data]") {
  const std::string text = "y,f1,f2\n1,0.5,0.25\n0,1,2\n";
  for (const char* col : {"y", "0"}) {
    INFO("--label-col " << col);
    const seatorch::data::Dataset d = seatorch::data::parse_csv(text, "t.csv", col);
    CHECK(d.features == 2);
    CHECK(d.x == std::vector<float>{0.5f, 0.25f, 1.0f, 2.0f});
    CHECK(d.y == std::vector<std::int32_t>{1, 0});
    CHECK(d.classes == 2);
  }
  // A header name wins over an index: the column named "2" is column 0.
  const seatorch::data::Dataset named = seatorch::data::parse_csv("2,x,z\n1,7,8\n", "t.csv", "2");
  CHECK(named.y == std::vector<std::int32_t>{1});
  CHECK(named.x == std::vector<float>{7.0f, 8.0f});
}

TEST_CASE("CSV accepts a BOM CRLF quotes spaces and blank lines", "[data]") {
  const std::string text = "\xEF\xBB\xBF\"width, cm\", \"say \"\"hi\"\"\" ,class\r\n\r\n 1 , \"2\" , 3 \r\n\n0,0,1\n";
  const seatorch::data::Dataset d = seatorch::data::parse_csv(text, "t.csv", "class");
  CHECK(d.size() == 2);
  CHECK(d.x == std::vector<float>{1.0f, 2.0f, 0.0f, 0.0f});
  CHECK(d.y == std::vector<std::int32_t>{3, 1});
  CHECK(d.classes == 4);
  // The quoted header names are unescaped: they are what --label-col matches.
  CHECK(seatorch::data::parse_csv(text, "t.csv", "width, cm").y == std::vector<std::int32_t>{1, 0});
  CHECK(seatorch::data::parse_csv(text, "t.csv", "say \"hi\"").y == std::vector<std::int32_t>{2, 0});
}

TEST_CASE("bad CSV input names the file line and column", "[data]") {
  struct Case {
    std::string text;
    const char* label_col;
    std::vector<const char*> expected;
  };
  const std::vector<Case> cases{
      {"", "", {"t.csv", "the file is empty"}},
      {"\n \n", "", {"t.csv", "the file is empty"}},
      {"a,b\n", "", {"t.csv", "no data rows"}},
      {"only\n1\n", "", {"t.csv:1", "1 column"}},
      {"a,b\n1,2\nx,1\n", "", {"t.csv:3", "column 'a'", "'x' is not a number"}},
      {"a,b\n1e99,1\n", "", {"t.csv:2", "'1e99' is not a finite float"}},
      {"a,b\nnan,1\n", "", {"t.csv:2", "'nan' is not a finite float"}},
      {"a,b\n,1\n", "", {"t.csv:2", "'' is not a number"}},
      {"a,b\n1,-1\n", "", {"t.csv:2", "label column 'b'", "'-1' is not a class label"}},
      {"a,b\n1,1.5\n", "", {"t.csv:2", "'1.5' is not a class label"}},
      {"a,b\n1,10000\n", "", {"t.csv:2", "integer 0..9999"}},
      {"a,b,c\n1,2,3\n1,2\n", "", {"t.csv:3", "2 fields, but the header has 3 columns"}},
      {"a,b\n1,2,3\n", "", {"t.csv:2", "3 fields"}},
      {"a,b\n\"1,2\n", "", {"t.csv:2", "never closes"}},
      {"a,b\n\"1\"x,2\n", "", {"t.csv:2", "text after its closing quote"}},
      {"a,b\n1,2\n", "c", {"t.csv", "'c' is neither a header name nor an index 0..1", "a, b"}},
      {"a,b\n1,2\n", "2", {"t.csv", "'2' is neither"}},
  };
  for (const Case& c : cases) {
    const std::string message = csv_error(c.text, c.label_col);
    INFO("input [" << c.text << "] label-col [" << c.label_col << "]: " << message);
    for (const char* part : c.expected) CHECK_THAT(message, Contains(part));
  }
}

TEST_CASE("a CSV line over the limit is refused before it is split", "[data]") {
  const std::string text = "a,b\n" + std::string(seatorch::data::kCsvMaxLineBytes + 1, '1') + "\n";
  CHECK_THAT(csv_error(text), Contains("t.csv:2") && Contains("longer than 1 MiB"));
}

TEST_CASE("read_csv reads raw and gzip files and names the path", "[data]") {
  seatorch::test::ScratchDir dir;
  const std::string text = "f,label\n0.5,1\n0.25,0\n";
  seatorch::test::write_text(dir / "d.csv", text);
  seatorch::test::write_file(dir / "d.csv.gz", seatorch::test::gzip(seatorch::test::read_file(dir / "d.csv")));
  for (const char* name : {"d.csv", "d.csv.gz"}) {
    const seatorch::data::Dataset d = seatorch::data::read_csv(dir / name, "");
    CHECK(d.y == std::vector<std::int32_t>{1, 0});
  }
  seatorch::test::write_text(dir / "bad.csv", "f,label\n0.5,x\n");
  CHECK_THROWS_WITH(seatorch::data::read_csv(dir / "bad.csv", ""), Contains((dir / "bad.csv").string() + ":2"));
}

TEST_CASE("CSV text quoted in messages is escaped and cut short", "[data]") {
  // A field holding a terminal escape and 2000 more bytes: the message stays one short line.
  const std::string text = "a,b\n\"\x1b[2J" + std::string(2000, '7') + "x\",1\n";
  const std::string message = csv_error(text);
  INFO(message);
  CHECK_THAT(message, Contains("t.csv:2") && Contains("'\\x1b[2J777") && Contains("...' is not a number"));
  CHECK(message.find('\x1b') == std::string::npos);
  CHECK(message.size() < 200);
}
