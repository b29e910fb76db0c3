// JsonFields: presence and type checks with the field's path in every problem.
#include "seatorch/core/json_fields.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <utility>

namespace seatorch::core {

JsonFields::JsonFields(const nlohmann::json& json, std::string where, Fail fail)
    : json_(json), where_(std::move(where)), fail_(std::move(fail)) {
  if (!json_.is_object()) this->fail(where_ + " is not a JSON object");
}

void JsonFields::fail(const std::string& problem) const {
  fail_(problem);
  throw std::logic_error("JsonFields: the fail callback returned for: " + problem);
}

void JsonFields::fail(const char* key, const std::string& problem) const {
  fail(fmt::format("{}.{} {}", where_, key, problem));
}

const nlohmann::json& JsonFields::get(const char* key) const {
  const auto it = json_.find(key);
  if (it == json_.end()) fail(fmt::format("{} has no '{}'", where_, key));
  return *it;
}

std::uint64_t JsonFields::count(const char* key) const {
  const nlohmann::json& v = get(key);
  if (!v.is_number_unsigned()) fail(key, "is not a non-negative integer");
  return v.get<std::uint64_t>();
}

double JsonFields::number(const char* key) const {
  const nlohmann::json& v = get(key);
  if (!v.is_number() || !std::isfinite(v.get<double>())) fail(key, "is not a number");
  return v.get<double>();
}

std::optional<double> JsonFields::optional_number(const char* key) const {
  if (get(key).is_null()) return std::nullopt;
  return number(key);
}

bool JsonFields::boolean(const char* key) const {
  const nlohmann::json& v = get(key);
  if (!v.is_boolean()) fail(key, "is not true or false");
  return v.get<bool>();
}

std::string JsonFields::string(const char* key) const {
  const nlohmann::json& v = get(key);
  if (!v.is_string()) fail(key, "is not a string");
  return v.get<std::string>();
}

std::vector<std::uint64_t> JsonFields::counts(const char* key) const {
  const nlohmann::json& v = get(key);
  if (!v.is_array()) fail(key, "is not an array");
  std::vector<std::uint64_t> values;
  for (const nlohmann::json& item : v) {
    if (!item.is_number_unsigned()) fail(key, "holds a value that is not a non-negative integer");
    values.push_back(item.get<std::uint64_t>());
  }
  return values;
}

}  // namespace seatorch::core
