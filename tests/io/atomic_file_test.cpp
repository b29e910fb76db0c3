// Atomic writes: the file appears complete, replaces the old one, and a failed write leaves
// neither a partial file nor a temporary behind; the file gets the permissions of a plain create.
#include "seatorch/io/atomic_file.hpp"

#include "../scratch_dir.hpp"
#include "seatorch/core/error.hpp"

#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <span>
#include <sstream>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t entries(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("write_file_atomic creates and replaces files without leftovers", "[io]") {
  const seatorch::test::ScratchDir dir;
  const fs::path path = dir / "nested" / "out.txt";
  seatorch::io::write_file_atomic(path, std::string_view("first version"));
  CHECK(slurp(path) == "first version");
  seatorch::io::write_file_atomic(path, std::string_view("second"));
  CHECK(slurp(path) == "second");
  CHECK(entries(path.parent_path()) == 1);

  SECTION("a target that is a directory fails cleanly") {
    const fs::path blocker = dir / "nested" / "blocker";
    fs::create_directories(blocker / "inside");
    CHECK_THROWS_WITH(seatorch::io::write_file_atomic(blocker, std::string_view("x")), Catch::Contains("blocker"));
    CHECK(fs::is_directory(blocker));
    CHECK(entries(dir / "nested") == 2);  // out.txt and blocker: no temporary left
  }
  SECTION("a parent that is a file fails cleanly") {
    CHECK_THROWS_AS(seatorch::io::write_file_atomic(path / "child", std::string_view("x")), seatorch::core::InputError);
    CHECK(slurp(path) == "second");
  }
}

TEST_CASE("write_file_atomic writes its pieces one after another as one file", "[io]") {
  const seatorch::test::ScratchDir dir;
  const fs::path path = dir / "pieces.bin";
  const std::vector<std::uint8_t> head{'a', 'b'};
  const std::vector<std::uint8_t> tail{'c'};
  const std::vector<std::span<const std::uint8_t>> pieces{head, {}, tail};  // an empty piece writes nothing
  seatorch::io::write_file_atomic(path, pieces);
  CHECK(slurp(path) == "abc");
  CHECK(entries(dir.path()) == 1);
}

TEST_CASE("check_not_input refuses an output that is the input by any of its names", "[io]") {
  const seatorch::test::ScratchDir dir;
  const fs::path input = dir / "model.safetensors";
  seatorch::io::write_file_atomic(input, std::string_view("the input"));
  fs::create_symlink(input, dir / "link.safetensors");
  const auto refused = [&](const fs::path& out) {
    CHECK_THROWS_WITH(seatorch::io::check_not_input(out, input, "the float checkpoint being quantized"),
                      "cannot write '" + out.string() +
                          "': it is the float checkpoint being quantized; write the result to another file");
  };
  refused(input);
  refused(dir / "." / "model.safetensors");
  refused(dir / "link.safetensors");
  // Another file, or one not written yet, is fine; so is an input that does not exist (its
  // reader reports that).
  seatorch::io::write_file_atomic(dir / "other.safetensors", std::string_view("x"));
  CHECK_NOTHROW(seatorch::io::check_not_input(dir / "other.safetensors", input, "the input"));
  CHECK_NOTHROW(seatorch::io::check_not_input(dir / "new.safetensors", input, "the input"));
  CHECK_NOTHROW(seatorch::io::check_not_input(input, dir / "missing.safetensors", "the input"));
  CHECK(slurp(input) == "the input");
}

TEST_CASE("atomically written files get the permissions of a plain create", "[io]") {
  // Regression: the temporary from mkstemp is 0600, so every checkpoint, model and report
  // used to be readable by its owner only. Expected: 0666 minus the umask, as open() gives.
  const seatorch::test::ScratchDir dir;
  const mode_t saved = ::umask(022);
  seatorch::io::write_file_atomic(dir / "a.txt", std::string_view("a"));
  ::umask(027);
  seatorch::io::write_file_atomic(dir / "b.txt", std::string_view("b"));
  ::umask(saved);
  using P = fs::perms;
  CHECK((fs::status(dir / "a.txt").permissions() & P::all) ==
        (P::owner_read | P::owner_write | P::group_read | P::others_read));  // 0644
  CHECK((fs::status(dir / "b.txt").permissions() & P::all) ==
        (P::owner_read | P::owner_write | P::group_read));  // 0640
}
