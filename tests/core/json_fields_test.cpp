// JsonFields: every typed read on good values, and every miss as one line naming the file,
// the field's path and what was found; the strict form's unknown keys; the caller's hint.
#include "seatorch/core/json_fields.hpp"

#include "seatorch/core/error.hpp"

#include <catch2/catch.hpp>

#include <functional>
#include <string>

namespace core = seatorch::core;
using nlohmann::json;

namespace {

// The message of the InputError that `read` throws, or "no error".
std::string error_of(const std::function<void()>& read) {
  try {
    read();
  } catch (const core::InputError& e) {
    return e.what();
  }
  return "no error";
}

const core::JsonSource kFile{"f.json", "the file", ""};

}  // namespace

TEST_CASE("json fields read typed values", "[core]") {
  const json j = json::parse(R"({"n": 7, "z": -3, "big": 18446744073709551615, "x": 0.5, "none": null,
                                 "ok": true, "s": "abc", "a": [1, 2], "sizes": [256, 128], "o": {"k": 1}})");
  const core::JsonFields f(j, kFile, "");
  CHECK(f.has("n"));
  CHECK_FALSE(f.has("m"));
  CHECK(f.get("o").at("k") == 1);
  CHECK(f.unsigned_integer("n") == 7);
  CHECK(f.unsigned_integer("n", 7, 7) == 7);
  CHECK(f.unsigned_integer("big") == ~std::uint64_t{0});
  CHECK(f.signed_integer("z", -128, 127) == -3);
  CHECK(f.signed_integer("n", -128, 127) == 7);
  CHECK(f.unsigned_integers("sizes") == std::vector<std::uint64_t>{256, 128});
  CHECK(f.number("x") == 0.5);
  CHECK(f.number("n") == 7.0);
  CHECK(f.nullable_number("none") == std::nullopt);
  CHECK(f.nullable_number("x") == 0.5);
  CHECK(f.boolean("ok"));
  CHECK(f.string("s") == "abc");
  CHECK(f.string("s", 3) == "abc");
  CHECK(f.array("a", 2, 2).size() == 2);
  CHECK_NOTHROW(f.expect("n", 7, "the rest gives"));
  CHECK(f.path("n") == "n");
  CHECK(core::JsonFields(j.at("o"), kFile, "o").path("k") == "o.k");
}

TEST_CASE("json fields name the file, the path, the expectation and the value", "[core]") {
  json j = json::parse(R"({"n": -1, "big": 18446744073709551615, "f": 2.5, "s": "abcd", "b": 1,
                           "a": [1, 2, 3], "sizes": [4, -3], "o": {"k": "v"}})");
  j["long"] = std::string(100, 'x');
  const core::JsonFields f(j, kFile, "");
  const core::JsonFields o(j.at("o"), kFile, "o");
  CHECK(error_of([&] { (void)f.unsigned_integer("n"); }) == "f.json: 'n' must be a non-negative integer, got -1");
  CHECK(error_of([&] { (void)f.unsigned_integer("f", 1); }) == "f.json: 'f' must be an integer of at least 1, got 2.5");
  CHECK(error_of([&] { (void)f.unsigned_integer("big", 0, 255); }) ==
        "f.json: 'big' must be an integer from 0 to 255, got 18446744073709551615");
  CHECK(error_of([&] { (void)f.signed_integer("big", -128, 127); }) ==
        "f.json: 'big' must be an integer from -128 to 127, got 18446744073709551615");
  CHECK(error_of([&] { (void)f.signed_integer("n", 0, 9); }) == "f.json: 'n' must be an integer from 0 to 9, got -1");
  CHECK(error_of([&] { (void)f.unsigned_integers("sizes"); }) ==
        "f.json: 'sizes[1]' must be a non-negative integer, got -3");
  CHECK(error_of([&] { (void)f.unsigned_integers("f"); }) ==
        "f.json: 'f' must be an array of non-negative integers, got 2.5");
  CHECK(error_of([&] { (void)f.number("s"); }) == "f.json: 's' must be a number, got \"abcd\"");
  CHECK(error_of([&] { (void)f.nullable_number("s"); }) == "f.json: 's' must be a number or null, got \"abcd\"");
  CHECK(error_of([&] { (void)f.boolean("b"); }) == "f.json: 'b' must be true or false, got 1");
  CHECK(error_of([&] { (void)f.string("b"); }) == "f.json: 'b' must be a string, got 1");
  CHECK(error_of([&] { (void)f.string("s", 3); }) == "f.json: 's' must be a string of at most 3 bytes, got \"abcd\"");
  CHECK(error_of([&] { (void)f.array("a", 1, 2); }) ==
        "f.json: 'a' must be an array of 1 to 2 elements, got an array of 3 elements");
  CHECK(error_of([&] { (void)f.array("o", 1); }) ==
        "f.json: 'o' must be an array of at least 1 elements, got an object");
  CHECK(error_of([&] { (void)f.array("b"); }) == "f.json: 'b' must be an array, got 1");
  CHECK(error_of([&] { (void)o.number("k"); }) == "f.json: 'o.k' must be a number, got \"v\"");
  CHECK(error_of([&] { (void)f.get("m"); }) == "f.json: the file has no 'm' field");
  CHECK(error_of([&] { (void)o.get("m"); }) == "f.json: o has no 'm' field");
  CHECK(error_of([&] { f.expect("a", 2, "the rest gives"); }) ==
        "f.json: 'a' is an array of 3 elements, but the rest gives 2; the file contradicts itself (edited by hand?)");
  CHECK(error_of([&] { f.fail("b", "odd", j.at("b")); }) == "f.json: 'b' must be odd, got 1");
  // A long value is cut short: the message stays one short line.
  CHECK(error_of([&] { (void)f.number("long"); }) ==
        "f.json: 'long' must be a number, got \"" + std::string(79, 'x') + "...");
}

TEST_CASE("json fields check the object and, in the strict form, its keys", "[core]") {
  CHECK(error_of([] { core::JsonFields(json::array({1}), kFile, ""); }) ==
        "f.json: the file must be a JSON object, got an array of 1 element");
  CHECK(error_of([] { core::JsonFields(json(5), kFile, "layers[2]"); }) ==
        "f.json: 'layers[2]' must be a JSON object, got 5");
  const json j = json::parse(R"({"a": 1, "typo": 2})");
  CHECK(error_of([&] {
          core::JsonFields(j, kFile, "", {"a", "b"});
        }) == "f.json: unexpected field 'typo' in the file; its fields are a, b");
  CHECK(error_of([&] { core::JsonFields(j, kFile, "x", {"a", "typo"}); }) == "no error");
  CHECK(error_of([&] { core::JsonFields(j, kFile, "x"); }) == "no error");  // the lenient form ignores keys
  CHECK(error_of([&] { core::JsonFields(json::parse(R"({"\u001b[2J": 1})"), kFile, "x", {"a"}); }) ==
        "f.json: unexpected field '\\x1b[2J' in x; its fields are a");
}

TEST_CASE("json fields end every message with the caller's hint", "[core]") {
  // As the resume file reads its metadata: the file and what it is not, then how to fix it.
  const std::string name = "r.safetensors: not a valid resume file";
  const core::JsonSource resume{name, "the metadata", "start the run again without --resume"};
  const json config = json::parse(R"({"lr": "fast", "hidden": [8, 9]})");
  const core::JsonFields f(config, resume, "config");
  CHECK(f.unsigned_integers("hidden") == std::vector<std::uint64_t>{8, 9});
  CHECK(error_of([&] { (void)f.number("lr"); }) ==
        "r.safetensors: not a valid resume file: 'config.lr' must be a number, got \"fast\"; start the run again "
        "without --resume");
  CHECK(error_of([&] { (void)f.get("epochs"); }) ==
        "r.safetensors: not a valid resume file: config has no 'epochs' field; start the run again without --resume");
}
