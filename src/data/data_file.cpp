// Whole-file reads with transparent, bounded gzip decompression (zlib's inflate).
#include "seatorch/data/data_file.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/core/huge_pages.hpp"
#include "seatorch/io/read_file.hpp"

#include <zlib.h>

#include <algorithm>
#include <climits>

namespace seatorch::data {
namespace {

// zlib counts in `uInt` (32 bits): input and output are handed over in pieces this large.
constexpr std::size_t kZlibChunk = std::size_t{1} << 30;
// The first output buffer; it doubles as needed, up to the limit (plus one byte, see below).
constexpr std::size_t kInitialOutput = std::size_t{1} << 20;

// Owns a z_stream set up for gzip decoding; inflateEnd runs on every exit path.
class Inflater {
 public:
  explicit Inflater(std::string_view name) {
    // 16 + MAX_WBITS: expect the gzip wrapper (header and CRC-32/length trailer, both checked).
    if (inflateInit2(&stream_, 16 + MAX_WBITS) != Z_OK) {
      throw core::input_error("{}: cannot start gzip decompression (out of memory?)", name);
    }
  }
  ~Inflater() { inflateEnd(&stream_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  z_stream* get() { return &stream_; }

 private:
  z_stream stream_{};
};

// The output buffer to start with: the size the last member's trailer records (ISIZE, the
// length mod 2^32) plus the one byte that lets inflate report the end without a resize, so
// that a data file is inflated into one allocation of its size and never copied. The trailer
// is only trusted as far as deflate can expand the input (at most 1032:1), so a forged one
// cannot make us allocate more than a real stream of this size could fill.
std::size_t initial_output(std::span<const std::uint8_t> compressed) {
  constexpr std::size_t kTrailer = 8;                 // CRC-32, then ISIZE, little-endian
  constexpr std::size_t kMaxRatio = 1032;             // deflate's largest expansion
  if (compressed.size() < 18) return kInitialOutput;  // shorter than an empty gzip member
  const std::uint8_t* isize = compressed.data() + compressed.size() - kTrailer + 4;
  const std::size_t recorded = static_cast<std::size_t>(isize[0]) | static_cast<std::size_t>(isize[1]) << 8 |
                               static_cast<std::size_t>(isize[2]) << 16 | static_cast<std::size_t>(isize[3]) << 24;
  return std::min(recorded, compressed.size() * kMaxRatio) + 1;
}

}  // namespace

bool is_gzip(std::span<const std::uint8_t> bytes) { return bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b; }

std::vector<std::uint8_t> gunzip(std::span<const std::uint8_t> compressed, std::string_view name,
                                 std::size_t max_bytes) {
  Inflater inflater(name);
  z_stream* z = inflater.get();
  // The buffer may grow to max_bytes + 1: producing that last byte proves the content is
  // over the limit, without trusting the size in the gzip trailer (it is only mod 2^32).
  const std::size_t cap = max_bytes + 1;
  std::vector<std::uint8_t> out = core::zeroed_bytes(std::min(cap, initial_output(compressed)));
  std::size_t in_pos = 0;
  std::size_t out_pos = 0;
  for (;;) {
    if (out_pos == out.size()) out.resize(std::min(cap, out.size() * 2));
    const std::size_t in_chunk = std::min(compressed.size() - in_pos, kZlibChunk);
    const std::size_t out_chunk = std::min(out.size() - out_pos, kZlibChunk);
    // zlib's API is not const-correct; inflate only reads next_in.
    z->next_in = const_cast<Bytef*>(compressed.data() + in_pos);
    z->avail_in = static_cast<uInt>(in_chunk);
    z->next_out = out.data() + out_pos;
    z->avail_out = static_cast<uInt>(out_chunk);
    const int rc = inflate(z, Z_NO_FLUSH);
    in_pos += in_chunk - z->avail_in;
    out_pos += out_chunk - z->avail_out;
    if (out_pos > max_bytes) {
      throw core::input_error("{}: decompresses to more than {}, the limit for a data file", name,
                              io::describe_bytes(max_bytes));
    }
    if (rc == Z_STREAM_END) {
      if (in_pos == compressed.size()) break;
      // RFC 1952 allows several members back to back (`cat a.gz b.gz`); anything else is junk.
      if (!is_gzip(compressed.subspan(in_pos))) {
        throw core::input_error("{}: {} unexpected bytes follow the gzip stream; re-download the file", name,
                                compressed.size() - in_pos);
      }
      inflateReset(z);
      continue;
    }
    if (rc == Z_BUF_ERROR && in_pos == compressed.size() && out_pos < out.size()) {
      throw core::input_error("{}: the gzip stream ends early (truncated file after {} compressed bytes); "
                              "re-download the file",
                              name, compressed.size());
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      throw core::input_error("{}: corrupt gzip data ({}); re-download the file", name,
                              z->msg != nullptr ? z->msg : "inflate failed");
    }
  }
  out.resize(out_pos);
  // Give back a grown buffer's slack, but never copy a buffer the trailer sized (one byte over).
  if (out.capacity() - out.size() > out.size() / 16) out.shrink_to_fit();
  return out;
}

std::vector<std::uint8_t> read_data_file(const std::filesystem::path& path, std::size_t max_bytes) {
  std::vector<std::uint8_t> bytes = io::read_file(path, max_bytes, "a data file");
  if (is_gzip(bytes)) return gunzip(bytes, path.string(), max_bytes);
  return bytes;
}

}  // namespace seatorch::data
