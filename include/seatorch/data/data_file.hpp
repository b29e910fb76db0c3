// Reads a whole data file into memory, transparently decompressing gzip, within a size limit.
//
// Compression is detected by the gzip magic (1f 8b), never by the file name. Decompression
// is a bounded streaming loop: it never trusts a size field in the stream, and stops with
// an InputError as soon as the output would pass the limit (a "zip bomb" costs at most the
// limit in memory and the time to inflate it). Deliberately no other formats (zip, xz, bz2)
// and no memory mapping: data sets are read once and fit in memory.
#pragma once

#include "seatorch/io/read_file.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::data {

// The most bytes a data file may hold, on disk and after decompression: 1 GiB.
inline constexpr std::size_t kMaxDataFileBytes = std::size_t{1} << 30;

// True when `bytes` starts with the gzip magic 1f 8b.
bool is_gzip(std::span<const std::uint8_t> bytes);

// Decompresses a gzip stream (one or more members, RFC 1952) read from `name` (used in
// messages). Throws InputError when the stream is corrupt or truncated, when anything other
// than another gzip member follows it, or when it decompresses to more than `max_bytes`.
std::vector<std::uint8_t> gunzip(std::span<const std::uint8_t> compressed, std::string_view name,
                                 std::size_t max_bytes = kMaxDataFileBytes);

// The content of the regular file at `path`, decompressed when it is gzip. Throws
// InputError when the file is missing, not a regular file (a FIFO would hang the read),
// unreadable, or larger than `max_bytes` on disk or decompressed.
std::vector<std::uint8_t> read_data_file(const std::filesystem::path& path, std::size_t max_bytes = kMaxDataFileBytes);

}  // namespace seatorch::data
