// Typed reading of the JSON objects seatorch's files carry (the resume file's recipe and
// position, the NPU manifest): each access checks the field's presence and type, and every
// miss goes to the caller's `fail` with the field's path ("config.lr is not a number"), so
// that each file format words its own one-line error around the problem.
// Deliberately not here: schemas, defaults or writing JSON (nlohmann does that).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace seatorch::core {

class JsonFields {
 public:
  // Called with the problem ("config has no 'lr'"); must throw.
  using Fail = std::function<void(const std::string& problem)>;

  // `where` names the object in problems ("config"); fails unless `json` is an object.
  JsonFields(const nlohmann::json& json, std::string where, Fail fail);

  [[nodiscard]] const nlohmann::json& get(const char* key) const;
  [[nodiscard]] std::uint64_t count(const char* key) const;  // a non-negative integer
  [[nodiscard]] double number(const char* key) const;        // finite
  [[nodiscard]] std::optional<double> optional_number(const char* key) const;  // null: absent
  [[nodiscard]] bool boolean(const char* key) const;
  [[nodiscard]] std::string string(const char* key) const;
  // An array of non-negative integers.
  [[nodiscard]] std::vector<std::uint64_t> counts(const char* key) const;

  // Fails with "<where>.<key> <problem>", for checks the types above do not cover.
  [[noreturn]] void fail(const char* key, const std::string& problem) const;

 private:
  [[noreturn]] void fail(const std::string& problem) const;

  const nlohmann::json& json_;
  std::string where_;
  Fail fail_;
};

}  // namespace seatorch::core
