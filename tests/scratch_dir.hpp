// The one scratch directory of the test suite: every test that writes files writes them in
// a ScratchDir, so two test runs on one machine (ctest -j, two builds, two users) never share
// a path. The directory is <temp>/seatorch-<pid>-<test case>-<n>-XXXXXX: the process id,
// the running Catch2 test case's name (sanitized), a per-process counter and mkdtemp's
// suffix, created empty and removed with its contents when the ScratchDir goes.
// Make one inside a TEST_CASE (the name comes from the running test case).
#pragma once

#include <catch2/catch.hpp>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace seatorch::test {

class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<unsigned> counter{0};
    std::string pattern = (std::filesystem::temp_directory_path() /
                           ("seatorch-" + std::to_string(::getpid()) + "-" + sanitized(current_test_name()) + "-" +
                            std::to_string(counter++) + "-XXXXXX"))
                              .string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("cannot create a scratch directory " + pattern + "; is the temp directory writable?");
    }
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

 private:
  static std::string current_test_name() {
    Catch::IResultCapture* capture = Catch::getCurrentContext().getResultCapture();
    return capture != nullptr ? capture->getCurrentTestName() : std::string("no-test");
  }
  // Letters, digits, '-' and '_' only, at most 48 characters: a portable file name part.
  static std::string sanitized(std::string_view name) {
    std::string out;
    for (const char c : name) {
      if (out.size() == 48) break;
      const bool plain =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
      out += plain ? c : '_';
    }
    return out;
  }

  std::filesystem::path path_;
};

}  // namespace seatorch::test
