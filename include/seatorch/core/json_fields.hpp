// Typed reads of the fields of one JSON object from a file, for every reader of JSON that a
// user (or a hostile file) wrote: the NPU image manifest (npu/manifest.cpp) and the resume
// file's metadata (train/resume.cpp). Every read names the type and range it expects, and
// every miss is one InputError line naming the file, the field's path and what was found:
//   m.manifest.json: 'layers[0].in' must be an integer from 1 to 65535, got 2.5
//   m.manifest.json: layers[0] has no 'w_base' field
//   m.manifest.json: unexpected field 'note' in the manifest; its fields are format, ...
// A value quoted in a message is cut short and escaped (describe_json), so a hostile file
// can neither break the line nor make the message recurse through a deep array.
// Deliberately not here: parsing text (the callers catch nlohmann's parse errors, whose
// messages differ by reader) and any meaning of the fields.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::core {

// Where the JSON came from, for messages "<name>: <problem>[; <hint>]". The views must
// outlive the JsonFields that use them.
struct JsonSource {
  std::string_view name;                     // first in every message: "m.manifest.json"
  std::string_view document = "the object";  // the root object in messages: "the manifest"
  std::string_view hint;                     // last in every message after "; " unless empty
};

// A JSON value for a message: scalars as written (cut short, escaped), containers by kind.
std::string describe_json(const nlohmann::json& value);

class JsonFields {
 public:
  static constexpr std::uint64_t kAnyCount = std::numeric_limits<std::uint64_t>::max();
  static constexpr std::size_t kAnySize = std::numeric_limits<std::size_t>::max();

  // `where` is the object's path in the document ("layers[2]", "config"), "" for the root.
  // Throws unless `object` is a JSON object. Keys the reader does not ask for are ignored.
  JsonFields(const nlohmann::json& object, JsonSource source, std::string where);
  // The same, and throws on any key not in `allowed` (a typo must not pass as "absent").
  JsonFields(const nlohmann::json& object, JsonSource source, std::string where,
             std::initializer_list<std::string_view> allowed);

  [[nodiscard]] bool has(std::string_view key) const;
  // The value of a required field.
  [[nodiscard]] const nlohmann::json& get(std::string_view key) const;

  // An integer in [lo, hi]; the defaults accept any non-negative integer.
  [[nodiscard]] std::uint64_t unsigned_integer(std::string_view key, std::uint64_t lo = 0,
                                               std::uint64_t hi = kAnyCount) const;
  [[nodiscard]] std::int64_t signed_integer(std::string_view key, std::int64_t lo, std::int64_t hi) const;
  // An array of non-negative integers ("hidden": [256, 128]).
  [[nodiscard]] std::vector<std::uint64_t> unsigned_integers(std::string_view key) const;
  // A finite number (JSON cannot hold others, but a JSON object built in code can).
  [[nodiscard]] double number(std::string_view key) const;
  // A finite number or null (nullopt); the field itself is required.
  [[nodiscard]] std::optional<double> nullable_number(std::string_view key) const;
  [[nodiscard]] bool boolean(std::string_view key) const;
  [[nodiscard]] std::string string(std::string_view key, std::size_t max_bytes = kAnySize) const;
  // An array of min to max elements, for the caller to read element by element.
  [[nodiscard]] const nlohmann::json& array(std::string_view key, std::size_t min = 0,
                                            std::size_t max = kAnySize) const;

  // A value the writer derived from other fields: throws unless it equals `derived`, the
  // value that `from` ("the layers give") gives.
  void expect(std::string_view key, const nlohmann::json& derived, std::string_view from) const;

  // The field's path for messages: "layers[2].in", or "in" in the root.
  [[nodiscard]] std::string path(std::string_view key) const;
  // Throws "'<path>' must be <expected>, got <value>": for checks of the caller's own.
  [[noreturn]] void fail(std::string_view key, std::string_view expected, const nlohmann::json& got) const;

 private:
  [[noreturn]] void fail_problem(const std::string& problem) const;
  [[nodiscard]] std::string object_name() const;  // "layers[2]" or the document

  const nlohmann::json& object_;
  JsonSource source_;
  std::string where_;
};

}  // namespace seatorch::core
