// Whole-file reads within a size limit: how every seatorch reader gets a file's bytes.
//
// The path must name a regular file (a FIFO or a device could block the read forever or
// never end), and its size is checked against the caller's limit before anything is
// allocated. Every failure is one InputError naming the path. Deliberately not here:
// decompression (data/data_file.hpp adds gzip on top) and memory mapping (every file
// seatorch reads fits in memory and is read once).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::io {

// The bytes of the regular file at `path`. Throws InputError when it is missing, not a
// regular file, unreadable, or larger than `max_bytes` (the message says "the limit for
// <kind>", e.g. kind = "a data file").
std::vector<std::uint8_t> read_file(const std::filesystem::path& path, std::size_t max_bytes, std::string_view kind);

// A byte count in words for messages: "1 GiB", "16 MiB", "1234 bytes".
std::string describe_bytes(std::size_t bytes);

}  // namespace seatorch::io
