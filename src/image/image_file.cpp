// read_image(): signature -> PNG chunk check -> the format's header reader -> size limits ->
// the format's decoder, through read callbacks that notice the data ending early -> gray
// over white.
// The one translation unit that compiles stb_image (STB_IMAGE_IMPLEMENTATION). Its header
// is included as a system header (CMakeLists.txt), so its own warnings stay quiet while
// this file keeps -Wall -Wextra -Wpedantic and the asan preset's sanitizers.
#include "seatorch/image/image_file.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/image/png_chunks.hpp"
#include "seatorch/image/pnm.hpp"
#include "seatorch/io/read_file.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace {

// Set when stb_image asked for a buffer above kMaxImageDecodeAllocation (it then reports
// "outofmem"), so the message can state the limit instead.
thread_local bool g_allocation_refused = false;

void* stbi_capped_malloc(std::size_t size) {
  if (size > seatorch::image::kMaxImageDecodeAllocation) {
    g_allocation_refused = true;
    return nullptr;
  }
  return std::malloc(size);
}

void* stbi_capped_realloc(void* p, std::size_t size) {
  if (size > seatorch::image::kMaxImageDecodeAllocation) {
    g_allocation_refused = true;
    return nullptr;
  }
  return std::realloc(p, size);
}

}  // namespace

// Only the formats that fuzz clean (docs/DECISIONS.md): JPEG is compiled out, because
// stb_image 2.27's JPEG decoder writes past a Huffman table on a hostile file (found by the
// `image` fuzzer, docs/RELIABILITY.md). Memory only, no stdio. stb_image refuses a larger
// side by itself too, before allocating.
#define STBI_ONLY_PNG
#define STBI_ONLY_BMP
#define STBI_NO_STDIO
#define STBI_NO_LINEAR
#define STBI_MAX_DIMENSIONS 4096
#define STBI_MALLOC(size) stbi_capped_malloc(size)
#define STBI_REALLOC(p, size) stbi_capped_realloc(p, size)
#define STBI_FREE(p) std::free(p)
#define STB_IMAGE_IMPLEMENTATION
#include <stb/stb_image.h>

static_assert(STBI_MAX_DIMENSIONS == seatorch::image::kMaxImageSide);

namespace seatorch::image {
namespace {

using namespace std::string_view_literals;  // the magic numbers hold NUL bytes

constexpr std::string_view kFormats = "PNG, BMP or binary PGM/PPM";

enum class Format { kPng, kBmp, kRefused };

// The format a file's first bytes announce: one stb_image decodes here, or one named only to
// refuse it clearly.
struct Signature {
  std::string_view magic;
  std::string_view name;  // the format, or for kRefused a phrase: "{}; seatorch reads ..."
  Format format;
};
constexpr std::array<Signature, 13> kSignatures{{
    {"\x89PNG\r\n\x1a\n"sv, "PNG", Format::kPng},
    {"BM"sv, "BMP", Format::kBmp},
    {"\xff\xd8\xff"sv, "a JPEG image", Format::kRefused},
    {"GIF8"sv, "a GIF image", Format::kRefused},
    {"II*\0"sv, "a TIFF image", Format::kRefused},
    {"MM\0*"sv, "a TIFF image", Format::kRefused},
    {"RIFF"sv, "a RIFF file (WebP?)", Format::kRefused},
    {"8BPS"sv, "a Photoshop image", Format::kRefused},
    {"#?RADIANCE"sv, "a Radiance HDR image", Format::kRefused},
    {"P1"sv, "an ASCII PBM image", Format::kRefused},
    {"P2"sv, "an ASCII PGM image", Format::kRefused},
    {"P3"sv, "an ASCII PPM image", Format::kRefused},
    {"P4"sv, "a binary PBM (bitmap) image", Format::kRefused},
}};

const Signature* find_signature(std::span<const std::uint8_t> bytes) {
  for (const Signature& s : kSignatures) {
    if (bytes.size() >= s.magic.size() && std::memcmp(bytes.data(), s.magic.data(), s.magic.size()) == 0) return &s;
  }
  return nullptr;
}

// stb_image reads through these callbacks rather than from memory so that running out of
// bytes is seen: from memory it quietly yields zeros there (a truncated BMP decodes with
// black rows). stb_image asks for bytes in two ways: to refill its own 128-byte buffer when
// it needs the next byte (then none left means the data ended early), and for an exact
// count into the caller's buffer (stbi__getn: then fewer than asked means the same).
class StbReader {
 public:
  StbReader(std::span<const std::uint8_t> bytes, std::string_view source, std::string_view format)
      : bytes_(bytes), source_(source), format_(format) {
    stbi_io_callbacks callbacks{&StbReader::read, &StbReader::skip, &StbReader::eof};
    stbi__start_callbacks(&context_, &callbacks, this);
  }
  StbReader(const StbReader&) = delete;  // the context points into itself
  StbReader& operator=(const StbReader&) = delete;

  // The header, through the format's own reader. stbi_info() would try every compiled-in
  // format in turn and report only "unknown image type"; the format's reader keeps its own
  // reason, and the size it read is in the context even when it refused the header.
  void read_header(Format format, int& width, int& height) {
    int channels = 0;
    int ok = 0;
    switch (format) {
      case Format::kPng:
        ok = stbi__png_info(&context_, &width, &height, &channels);
        break;
      case Format::kBmp:
        ok = stbi__bmp_info(&context_, &width, &height, &channels);
        break;
      case Format::kRefused:
        break;
    }
    if (context_.img_x > kMaxImageSide || context_.img_y > kMaxImageSide || (ok != 0 && (width < 1 || height < 1))) {
      throw core::input_error(
          "{}: {} x {} pixels is outside 1..{} on a side, the limit for an image; scale it down first", source_,
          context_.img_x, context_.img_y, kMaxImageSide);
    }
    if (ended_early_) throw core::input_error("{}: truncated: the {} header ends early", source_, format_);
    if (ok == 0)
      throw core::input_error("{}: not a valid {} file: stb_image refuses its header ({})", source_, format_, reason());
  }

  // The pixels as (height, width, 2) gray and alpha bytes, through the format's own decoder
  // (stbi_load() would also try every format and could report another format's reason).
  std::unique_ptr<stbi_uc, decltype(&stbi_image_free)> decode(Format format, int& width, int& height) {
    int channels = 0;
    stbi__result_info info{};
    info.bits_per_channel = 8;
    void* data = nullptr;
    switch (format) {
      case Format::kPng:
        data = stbi__png_load(&context_, &width, &height, &channels, 2, &info);
        break;
      case Format::kBmp:
        data = stbi__bmp_load(&context_, &width, &height, &channels, 2, &info);
        break;
      case Format::kRefused:
        break;
    }
    if (data != nullptr && info.bits_per_channel == 16) {
      // As stbi_load does: the high byte of each 16-bit sample (this frees the 16-bit data).
      data = stbi__convert_16_to_8(static_cast<stbi__uint16*>(data), width, height, 2);
    }
    return {static_cast<stbi_uc*>(data), &stbi_image_free};
  }

  [[nodiscard]] bool ended_early() const { return ended_early_; }

  // stb_image's reason for its last failure, quoted; it names no file, so callers add ours.
  static std::string reason() {
    const char* reason = stbi_failure_reason();
    if (reason == nullptr || *reason == '\0') return "no reason given";
    return fmt::format("'{}'", core::printable(reason));
  }

 private:
  static int read(void* user, char* data, int size) {
    auto& r = *static_cast<StbReader*>(user);
    const std::size_t left = r.bytes_.size() - r.pos_;
    if (size <= 0) return 0;
    const bool refill = data == reinterpret_cast<char*>(r.context_.buffer_start);
    if (refill ? left == 0 : left < static_cast<std::size_t>(size)) r.ended_early_ = true;
    const std::size_t n = std::min(left, static_cast<std::size_t>(size));
    std::memcpy(data, r.bytes_.data() + r.pos_, n);
    r.pos_ += n;
    return static_cast<int>(n);
  }
  static void skip(void* user, int n) {
    auto& r = *static_cast<StbReader*>(user);
    if (n < 0) {
      r.pos_ -= std::min(r.pos_, static_cast<std::size_t>(-static_cast<long long>(n)));
      return;
    }
    const std::size_t step = static_cast<std::size_t>(n);
    if (step > r.bytes_.size() - r.pos_) r.ended_early_ = true;
    r.pos_ = std::min(r.bytes_.size(), r.pos_ + step);
  }
  static int eof(void* user) {
    const auto& r = *static_cast<StbReader*>(user);
    return r.pos_ >= r.bytes_.size() ? 1 : 0;
  }

  std::span<const std::uint8_t> bytes_;
  std::string_view source_;
  std::string_view format_;
  std::size_t pos_ = 0;
  bool ended_early_ = false;
  stbi__context context_{};
};

GrayImage decode_with_stb(std::span<const std::uint8_t> file, std::string_view source, const Signature& signature) {
  // A PNG file's chunks are checked first; stb_image gets it without empty IDAT chunks.
  const std::optional<std::vector<std::uint8_t>> rewritten =
      signature.format == Format::kPng ? check_png_chunks(file, source) : std::nullopt;
  const std::span<const std::uint8_t> bytes = rewritten ? std::span<const std::uint8_t>(*rewritten) : file;
  int width = 0;
  int height = 0;
  StbReader(bytes, source, signature.name).read_header(signature.format, width, height);

  StbReader reader(bytes, source, signature.name);
  g_allocation_refused = false;
  int decoded_width = 0;
  int decoded_height = 0;
  const auto data = reader.decode(signature.format, decoded_width, decoded_height);
  if (g_allocation_refused) {
    throw core::input_error("{}: decoding it needs a buffer above {}, the limit for an image (a corrupt {} file?)",
                            source, io::describe_bytes(kMaxImageDecodeAllocation), signature.name);
  }
  if (data == nullptr) {
    if (reader.ended_early()) {
      throw core::input_error("{}: truncated: the {} data ends early ({})", source, signature.name,
                              StbReader::reason());
    }
    throw core::input_error("{}: not a valid {} file: stb_image cannot decode it ({})", source, signature.name,
                            StbReader::reason());
  }
  if (reader.ended_early()) {
    throw core::input_error("{}: truncated: the {} data ends before the last pixel of its {} x {}", source,
                            signature.name, width, height);
  }
  if (decoded_width != width || decoded_height != height) {
    throw core::input_error("{}: its {} header says {} x {} but its data decodes to {} x {}", source, signature.name,
                            width, height, decoded_width, decoded_height);
  }

  // Gray and alpha, composited over white.
  GrayImage image;
  image.width = static_cast<std::size_t>(width);
  image.height = static_cast<std::size_t>(height);
  image.pixels.resize(image.width * image.height);
  const stbi_uc* gray_alpha = data.get();  // (height, width, 2)
  for (std::size_t i = 0; i < image.pixels.size(); ++i) {
    const unsigned gray = gray_alpha[2 * i];
    const unsigned alpha = gray_alpha[2 * i + 1];
    image.pixels[i] = static_cast<std::uint8_t>((gray * alpha + 255 * (255 - alpha) + 127) / 255);
  }
  return image;
}

}  // namespace

std::string_view readable_image_formats() { return kFormats; }

GrayImage decode_image(std::span<const std::uint8_t> bytes, std::string_view source) {
  if (bytes.empty()) throw core::input_error("{}: the file is empty; expected a picture ({})", source, kFormats);
  if (bytes.size() > kMaxImageFileBytes) {
    throw core::input_error("{}: {} bytes is more than {}, the limit for a picture", source, bytes.size(),
                            io::describe_bytes(kMaxImageFileBytes));
  }
  if (is_pnm(bytes)) return parse_pnm(bytes, source);
  const Signature* signature = find_signature(bytes);
  if (signature == nullptr) {
    const std::string_view head(reinterpret_cast<const char*>(bytes.data()), std::min<std::size_t>(bytes.size(), 8));
    throw core::input_error("{}: not a picture seatorch can read (it reads {}; the file starts with \"{}\")", source,
                            kFormats, core::printable(head));
  }
  if (signature->format == Format::kRefused) {
    throw core::input_error("{}: {}; seatorch reads {}: convert it first (e.g. to PNG)", source, signature->name,
                            kFormats);
  }
  return decode_with_stb(bytes, source, *signature);
}

GrayImage read_image(const std::filesystem::path& path) {
  const std::vector<std::uint8_t> bytes = io::read_file(path, kMaxImageFileBytes, "a picture");
  return decode_image(bytes, path.string());
}

}  // namespace seatorch::image
