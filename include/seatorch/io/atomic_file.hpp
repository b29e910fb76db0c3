// Atomic file writes: a reader of `path` sees either the old file or the complete new one,
// never a half-written file, and a failed write leaves nothing behind.
//
// The bytes go to a temporary file in the same directory (so rename() stays on one file
// system and is atomic), are flushed and fsync'ed, and the temporary is renamed over
// `path`; the directory is fsync'ed too so the rename survives a crash. The file gets the
// permissions a plain create would (0666 minus the umask), not the temporary's 0600. Any failure removes
// the temporary and throws write_error()'s InputError: `path`, the reason, and a hint that fits it.
// Deliberately not here: locking against concurrent writers (the last rename wins) and
// streaming writes (every file seatorch writes fits in memory).
#pragma once

#include "seatorch/core/error.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

namespace seatorch::io {

// Throws InputError when `path` cannot be written as a file: it names an existing directory,
// or one of its parents exists but is not a directory. Long jobs call it before they start,
// so that a typo in --out fails in a second, not after the training.
void check_output_path(const std::filesystem::path& path);

// Throws InputError when `path` is the file `input` (by either name: a link, `./x`), which the
// same command reads: `what` says what that input is ("the float checkpoint being
// quantized"). Writing a result there would replace the input it came from.
void check_not_input(const std::filesystem::path& path, const std::filesystem::path& input, std::string_view what);

// Writes `bytes` to `path`, creating missing parent directories.
void write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);
void write_file_atomic(const std::filesystem::path& path, std::string_view text);
// Writes the pieces one after another as one file: a file whose parts are already in memory
// (a header and its tensors) needs no copy of them all in one buffer.
void write_file_atomic(const std::filesystem::path& path, std::span<const std::span<const std::uint8_t>> pieces);

// The one-line error for a write of `bytes` bytes to `what` (a path, "stdout") whose `step`
// ("write", "fsync", ...) failed with errno `error`; its hint fits the cause: a full device
// or quota, a read-only file system, or a missing or unwritable directory.
core::InputError write_error(std::string_view what, std::string_view step, int error, std::size_t bytes);

// Writes all of `bytes` to the open file descriptor `fd` (a plain, non-atomic write: stdout),
// retrying short and interrupted writes; a failure throws write_error()'s InputError.
void write_all(int fd, std::span<const std::uint8_t> bytes, std::string_view what);

}  // namespace seatorch::io
