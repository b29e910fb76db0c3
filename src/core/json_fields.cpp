// JsonFields: each typed read checks the type and range first, then converts.
#include "seatorch/core/json_fields.hpp"

#include "seatorch/core/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace seatorch::core {

using nlohmann::json;

std::string describe_json(const json& value) {
  // Containers by kind only: dumping one from a hostile file could recurse a million levels deep.
  if (value.is_array()) return fmt::format("an array of {} element{}", value.size(), value.size() == 1 ? "" : "s");
  if (value.is_object()) return "an object";
  return printable(value.dump(-1, ' ', false, json::error_handler_t::replace));
}

JsonFields::JsonFields(const json& object, JsonSource source, std::string where)
    : object_(object), source_(source), where_(std::move(where)) {
  if (!object_.is_object()) fail("", "a JSON object", object_);
}

JsonFields::JsonFields(const json& object, JsonSource source, std::string where,
                       std::initializer_list<std::string_view> allowed)
    : JsonFields(object, source, std::move(where)) {
  for (const auto& item : object_.items()) {
    if (std::find(allowed.begin(), allowed.end(), item.key()) == allowed.end()) {
      fail_problem(fmt::format("unexpected field '{}' in {}; its fields are {}", printable(item.key()), object_name(),
                               fmt::join(allowed, ", ")));
    }
  }
}

bool JsonFields::has(std::string_view key) const { return object_.contains(key); }

const json& JsonFields::get(std::string_view key) const {
  const auto it = object_.find(key);
  if (it == object_.end()) fail_problem(fmt::format("{} has no '{}' field", object_name(), key));
  return *it;
}

std::uint64_t JsonFields::unsigned_integer(std::string_view key, std::uint64_t lo, std::uint64_t hi) const {
  const json& v = get(key);
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() < lo || v.get<std::uint64_t>() > hi) {
    if (hi != kAnyCount) fail(key, fmt::format("an integer from {} to {}", lo, hi), v);
    fail(key, lo == 0 ? std::string("a non-negative integer") : fmt::format("an integer of at least {}", lo), v);
  }
  return v.get<std::uint64_t>();
}

std::int64_t JsonFields::signed_integer(std::string_view key, std::int64_t lo, std::int64_t hi) const {
  const json& v = get(key);
  // Unsigned JSON numbers first: get<int64_t> on one above INT64_MAX would wrap.
  bool ok = false;
  if (v.is_number_unsigned()) {
    const std::uint64_t u = v.get<std::uint64_t>();
    ok = hi >= 0 && u <= static_cast<std::uint64_t>(hi) && static_cast<std::int64_t>(u) >= lo;
  } else if (v.is_number_integer()) {
    ok = v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
  }
  if (!ok) fail(key, fmt::format("an integer from {} to {}", lo, hi), v);
  return v.get<std::int64_t>();
}

std::vector<std::uint64_t> JsonFields::unsigned_integers(std::string_view key) const {
  const json& v = get(key);
  if (!v.is_array()) fail(key, "an array of non-negative integers", v);
  std::vector<std::uint64_t> values;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number_unsigned()) fail(fmt::format("{}[{}]", key, i), "a non-negative integer", v[i]);
    values.push_back(v[i].get<std::uint64_t>());
  }
  return values;
}

double JsonFields::number(std::string_view key) const {
  const json& v = get(key);
  if (!v.is_number() || !std::isfinite(v.get<double>())) fail(key, "a number", v);
  return v.get<double>();
}

std::optional<double> JsonFields::nullable_number(std::string_view key) const {
  const json& v = get(key);
  if (v.is_null()) return std::nullopt;
  if (!v.is_number() || !std::isfinite(v.get<double>())) fail(key, "a number or null", v);
  return v.get<double>();
}

bool JsonFields::boolean(std::string_view key) const {
  const json& v = get(key);
  if (!v.is_boolean()) fail(key, "true or false", v);
  return v.get<bool>();
}

std::string JsonFields::string(std::string_view key, std::size_t max_bytes) const {
  const json& v = get(key);
  if (!v.is_string() || v.get_ref<const std::string&>().size() > max_bytes) {
    fail(key, max_bytes == kAnySize ? std::string("a string") : fmt::format("a string of at most {} bytes", max_bytes),
         v);
  }
  return v.get<std::string>();
}

const json& JsonFields::array(std::string_view key, std::size_t min, std::size_t max) const {
  const json& v = get(key);
  if (!v.is_array() || v.size() < min || v.size() > max) {
    if (max != kAnySize) fail(key, fmt::format("an array of {} to {} elements", min, max), v);
    fail(key, min == 0 ? std::string("an array") : fmt::format("an array of at least {} elements", min), v);
  }
  return v;
}

void JsonFields::expect(std::string_view key, const json& derived, std::string_view from) const {
  const json& v = get(key);
  if (v != derived) {
    fail_problem(fmt::format("'{}' is {}, but {} {}; {} contradicts itself (edited by hand?)", path(key),
                             describe_json(v), from, describe_json(derived), source_.document));
  }
}

std::string JsonFields::path(std::string_view key) const {
  if (where_.empty()) return std::string(key);
  return key.empty() ? where_ : fmt::format("{}.{}", where_, key);
}

void JsonFields::fail(std::string_view key, std::string_view expected, const json& got) const {
  const std::string what = path(key);
  fail_problem(fmt::format("{} must be {}, got {}",
                           what.empty() ? std::string(source_.document) : fmt::format("'{}'", what), expected,
                           describe_json(got)));
}

void JsonFields::fail_problem(const std::string& problem) const {
  if (source_.hint.empty()) throw input_error("{}: {}", source_.name, problem);
  throw input_error("{}: {}; {}", source_.name, problem, source_.hint);
}

std::string JsonFields::object_name() const { return where_.empty() ? std::string(source_.document) : where_; }

}  // namespace seatorch::core
