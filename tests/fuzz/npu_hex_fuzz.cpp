// libFuzzer target: the NPU .hex reader (npu/hex.hpp) on arbitrary text. The text is read
// twice: as given (parse_npu_hex), and with its CRC word replaced by the CRC of its data
// (parse_npu_hex_words + npu_image_from_sections), because a mutated file almost never
// carries a matching CRC, and the checks behind the CRC need fuzzing too. Checks, on every
// image accepted: writing it back with npu_hex_text() and parsing that gives the same
// sections, CRC and layer table; decoding it to an integer model either works or throws
// InputError, and a decoded model runs the integer reference inference on an all-0 and an
// all-255 image (UBSan would flag an int32 overflow the validation promised to exclude),
// with one logit per output.
#include "fuzz_support.hpp"

#include "seatorch/core/crc32.hpp"
#include "seatorch/npu/hex.hpp"
#include "seatorch/npu/image.hpp"
#include "seatorch/npu/image_decode.hpp"
#include "seatorch/quant/int8_model.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace {

using namespace seatorch;

bool same_sections(const std::vector<npu::NpuSection>& a, const std::vector<npu::NpuSection>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t s = 0; s < a.size(); ++s) {
    if (a[s].name != b[s].name || a[s].address != b[s].address || a[s].words != b[s].words) return false;
  }
  return true;
}

void check_image(const npu::NpuImage& image) {
  const npu::NpuImage again = npu::parse_npu_hex(npu::npu_hex_text(image), "round trip");
  fuzz::require(again.crc == image.crc && again.lanes() == image.lanes(), "round trip keeps the CRC and lanes");
  fuzz::require(same_sections(again.sections, image.sections), "round trip keeps every section");
  fuzz::require(again.layers == image.layers, "round trip keeps the layer table");
  fuzz::reject_or_accept([&] {
    const quant::Int8Model model = npu::decode_npu_image(image);
    fuzz::require(model.layers.size() == image.layers.size(), "one decoded layer per descriptor");
    for (std::uint8_t pixel : {std::uint8_t{0}, std::uint8_t{255}}) {
      const std::vector<std::uint8_t> pixels(model.inputs(), pixel);
      const std::vector<std::int8_t> logits = quant::int8_forward_ref(model, pixels);
      fuzz::require(logits.size() == image.output_size(), "one logit per output");
    }
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz::reject_or_accept([&] { check_image(npu::parse_npu_hex(text, "fuzz.hex")); });
  fuzz::reject_or_accept([&] {
    npu::NpuHexWords words = npu::parse_npu_hex_words(text, "fuzz.hex");
    const std::uint32_t crc = seatorch::core::crc32(npu::npu_image_bytes(words.sections));
    check_image(npu::npu_image_from_sections(std::move(words.sections), crc, "fuzz.hex"));
  });
  return 0;
}
