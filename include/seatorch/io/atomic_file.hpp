// Atomic file writes: a reader of `path` sees either the old file or the complete new one,
// never a half-written file, and a failed write leaves nothing behind.
//
// The bytes go to a temporary file in the same directory (so rename() stays on one file
// system and is atomic), are flushed and fsync'ed, and the temporary is renamed over
// `path`; the directory is fsync'ed too so the rename survives a crash. The file gets the
// permissions a plain create would (0666 minus the umask), not the temporary's 0600. Any failure removes
// the temporary and throws InputError naming `path` and the system's reason.
// Deliberately not here: locking against concurrent writers (the last rename wins) and
// streaming writes (every file seatorch writes fits in memory).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

namespace seatorch::io {

// Throws InputError when `path` cannot be written as a file: it names an existing directory,
// or one of its parents exists but is not a directory. Long jobs call it before they start,
// so that a typo in --out fails in a second, not after the training.
void check_output_path(const std::filesystem::path& path);

// Writes `bytes` to `path`, creating missing parent directories.
void write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);
void write_file_atomic(const std::filesystem::path& path, std::string_view text);

}  // namespace seatorch::io
