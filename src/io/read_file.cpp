// read_file(): status check, size check, then one read of exactly that many bytes.
#include "seatorch/io/read_file.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/core/huge_pages.hpp"

#include <fstream>
#include <system_error>

namespace seatorch::io {

std::string describe_bytes(std::size_t bytes) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  constexpr std::size_t kGiB = std::size_t{1} << 30;
  if (bytes >= kGiB && bytes % kGiB == 0) return fmt::format("{} GiB", bytes / kGiB);
  if (bytes >= kMiB && bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  return fmt::format("{} bytes", bytes);
}

std::vector<std::uint8_t> read_file(const std::filesystem::path& path, std::size_t max_bytes, std::string_view kind) {
  if (path.empty()) throw core::input_error("the path is empty; give the path of {}", kind);
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    throw core::input_error("{}: no such file; give the path of {}", path.string(), kind);
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw core::input_error("{}: not a regular file; give the path of {}", path.string(), kind);
  }
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw core::input_error("{}: cannot read its size ({})", path.string(), ec.message());
  if (size > max_bytes) {
    throw core::input_error("{}: {} bytes is more than {}, the limit for {}", path.string(), size,
                            describe_bytes(max_bytes), kind);
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) throw core::input_error("{}: cannot open it for reading (permissions?)", path.string());
  // On 2 MiB pages where it is large: MNIST's training images load several times as fast in a
  // virtual machine (core/huge_pages.hpp).
  std::vector<std::uint8_t> bytes = core::zeroed_bytes(static_cast<std::size_t>(size));
  file.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (static_cast<std::size_t>(file.gcount()) != bytes.size()) {
    throw core::input_error("{}: could read only {} of its {} bytes", path.string(), file.gcount(), size);
  }
  return bytes;
}

}  // namespace seatorch::io
