// Write failures: the hint fits the cause (a full disk is not a permissions problem), and a
// plain write to a full device (/dev/full) says so.
#include "seatorch/io/atomic_file.hpp"

#include "seatorch/core/error.hpp"

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

using seatorch::io::write_error;

TEST_CASE("write_error's hint fits the errno", "[io]") {
  CHECK(std::string(write_error("out/model.safetensors", "write", ENOSPC, 1234).what()) ==
        "no space left on the device writing out/model.safetensors (1234 bytes): free space or write elsewhere");
  CHECK(std::string(write_error("out/model.safetensors", "fsync", EDQUOT, 99).what()) ==
        "the disk quota is used up writing out/model.safetensors (99 bytes): free space or write elsewhere");
  CHECK(std::string(write_error("/ro/model.hex", "creating a temporary file", EROFS, 5).what()) ==
        "cannot write /ro/model.hex: the file system is read-only; write elsewhere");
  for (const int error : {EACCES, EPERM, ENOENT, ENOTDIR}) {
    const std::string message = write_error("x/y.json", "creating a temporary file", error, 5).what();
    INFO(message);
    CHECK_THAT(message, Catch::StartsWith("cannot write x/y.json: creating a temporary file failed (") &&
                            Catch::EndsWith("); check that the directory exists and is writable"));
  }
  // Other causes get the system's reason alone, not a hint that does not fit.
  const std::string io = write_error("x", "write", EIO, 5).what();
  CHECK_THAT(io, Catch::StartsWith("cannot write x: write failed (") && !Catch::Contains("writable") &&
                     !Catch::Contains("space"));
}

TEST_CASE("write_all to a full device reports no space left", "[io]") {
  const int fd = ::open("/dev/full", O_WRONLY);
  if (fd < 0) {
    WARN("no /dev/full on this system");
    return;
  }
  const std::string_view text = "twelve bytes";
  const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  CHECK_THROWS_WITH(seatorch::io::write_all(fd, bytes, "/dev/full"),
                    "no space left on the device writing /dev/full (12 bytes): free space or write elsewhere");
  ::close(fd);
}
