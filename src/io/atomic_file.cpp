// write_file_atomic(): temporary file + fsync + rename, with POSIX calls because the
// standard library cannot fsync.
#include "seatorch/io/atomic_file.hpp"

#include "seatorch/core/error.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

namespace seatorch::io {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, std::string_view step, int error, std::size_t bytes) {
  throw write_error(path.string(), step, error, bytes);
}

// The permissions open(path, O_CREAT, 0666) would give: mkstemp makes its file 0600, which
// would leave every output readable by its owner only. Reading the umask means setting it;
// seatorch writes files from one thread, so the brief change is not observable.
mode_t default_file_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

// Owns the temporary file until it has been renamed into place.
class TempFile {
 public:
  TempFile(const std::filesystem::path& target, std::size_t bytes) : target_(target), bytes_(bytes) {
    std::string pattern = (target.parent_path() / fmt::format(".{}.tmp.XXXXXX", target.filename().string())).string();
    fd_ = ::mkstemp(pattern.data());
    if (fd_ < 0) fail(target_, "creating a temporary file", errno, bytes_);
    path_ = pattern;
    if (::fchmod(fd_, default_file_mode()) != 0) fail(target_, "fchmod", errno, bytes_);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
  }

  void write(std::span<const std::uint8_t> bytes) { write_all(fd_, bytes, target_.string()); }

  // fsync, close, rename over the target; afterwards the destructor has nothing to undo.
  void commit() {
    if (::fsync(fd_) != 0) fail(target_, "fsync", errno, bytes_);
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail(target_, "close", errno, bytes_);
    if (::rename(path_.c_str(), target_.c_str()) != 0) fail(target_, "rename", errno, bytes_);
    path_.clear();
  }

 private:
  std::filesystem::path target_;
  std::size_t bytes_;  // what is being written, for the messages
  std::string path_;
  int fd_ = -1;
};

// Makes the rename durable; a directory that cannot be opened for fsync (some file
// systems) is not an error, the data itself is already on disk.
void sync_directory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

core::InputError write_error(std::string_view what, std::string_view step, int error, std::size_t bytes) {
  switch (error) {
    case ENOSPC:
      return core::input_error("no space left on the device writing {} ({} bytes): free space or write elsewhere", what,
                               bytes);
    case EDQUOT:
      return core::input_error("the disk quota is used up writing {} ({} bytes): free space or write elsewhere", what,
                               bytes);
    case EROFS:
      return core::input_error("cannot write {}: the file system is read-only; write elsewhere", what);
    case EACCES:
    case EPERM:
    case ENOENT:
    case ENOTDIR:
      return core::input_error("cannot write {}: {} failed ({}); check that the directory exists and is writable", what,
                               step, std::strerror(error));
    default:
      return core::input_error("cannot write {}: {} failed ({})", what, step, std::strerror(error));
  }
}

void write_all(int fd, std::span<const std::uint8_t> bytes, std::string_view what) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw write_error(what, "write", errno, bytes.size());
    done += static_cast<std::size_t>(n);
  }
}

void check_output_path(const std::filesystem::path& path) {
  std::error_code ec;
  if (path.filename().empty() || std::filesystem::is_directory(path, ec)) {
    throw core::input_error("cannot write '{}': the path names a directory, not a file; name the file, e.g. {}",
                            path.string(), (path / "model.safetensors").string());
  }
  // The nearest parent that exists must be a directory (create_directories makes the rest).
  for (std::filesystem::path dir = path.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (std::filesystem::exists(dir, ec)) {
      if (!std::filesystem::is_directory(dir, ec)) {
        throw core::input_error("cannot write '{}': {} exists and is not a directory", path.string(), dir.string());
      }
      return;
    }
    if (dir == dir.parent_path()) return;
  }
}

void check_not_input(const std::filesystem::path& path, const std::filesystem::path& input, std::string_view what) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && std::filesystem::exists(input, ec) &&
      std::filesystem::equivalent(path, input, ec)) {
    throw core::input_error("cannot write '{}': it is {}; write the result to another file", path.string(), what);
  }
}

void write_file_atomic(const std::filesystem::path& path, std::span<const std::span<const std::uint8_t>> pieces) {
  check_output_path(path);
  std::size_t bytes = 0;
  for (const std::span<const std::uint8_t> piece : pieces) bytes += piece.size();
  const std::filesystem::path dir = path.parent_path();
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) fail(path, "creating the directory " + dir.string(), ec.value(), bytes);
  }
  TempFile temp(path, bytes);
  for (const std::span<const std::uint8_t> piece : pieces) temp.write(piece);
  temp.commit();
  sync_directory(dir);
}

void write_file_atomic(const std::filesystem::path& path, std::span<const std::uint8_t> bytes) {
  write_file_atomic(path, std::span<const std::span<const std::uint8_t>>(&bytes, 1));
}

void write_file_atomic(const std::filesystem::path& path, std::string_view text) {
  write_file_atomic(path,
                    std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

}  // namespace seatorch::io
