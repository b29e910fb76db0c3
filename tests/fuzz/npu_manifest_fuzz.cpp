// libFuzzer target: the NPU image manifest reader (npu/manifest.hpp) on arbitrary text.
// Checks, on every manifest it accepts: writing it back with npu_manifest_json() and parsing
// that gives the same manifest, and check_npu_manifest() accepts it against a fixed 4-3-2
// image exactly when it equals that image's own manifest (the seed corpus holds that one, so
// the fuzzer starts next to it).
#include "fuzz_support.hpp"

#include "seatorch/npu/image.hpp"
#include "seatorch/npu/image_builder.hpp"
#include "seatorch/npu/manifest.hpp"
#include "seatorch/quant/int8_model.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

using namespace seatorch;

// The int8 model tests/fuzz/make_corpus.py exports as the valid seeds (its int8_model()).
quant::Int8Layer layer(std::size_t in, std::size_t out, std::vector<std::int8_t> weight, std::vector<std::int32_t> bias,
                       std::int32_t zx, std::int32_t zw, std::int32_t zy, bool relu) {
  quant::Int8Layer l;
  l.in = in;
  l.out = out;
  l.weight = std::move(weight);  // (out, in)
  l.bias = std::move(bias);      // (out)
  l.multiplier.assign(out, std::int32_t{1} << 30);
  l.shift.assign(out, 7);
  l.input_zero_point = zx;
  l.weight_zero_point = zw;
  l.output_zero_point = zy;
  l.relu = relu;
  return l;
}

const npu::NpuImage& reference_image() {
  static const npu::NpuImage image = [] {
    quant::Int8Model model;
    model.layers.push_back(
        layer(4, 3, {1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12}, {10, -20, 30}, -128, 3, -128, true));
    model.layers.push_back(layer(3, 2, {20, -30, 40, -50, 60, -70}, {100, -100}, -128, 0, 5, false));
    return npu::build_npu_image(model);
  }();
  return image;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  npu::NpuManifest manifest;
  try {
    manifest = npu::parse_npu_manifest(text, "fuzz.manifest.json");
  } catch (const core::InputError&) {
    return 0;
  }
  const npu::NpuManifest again = npu::parse_npu_manifest(npu::npu_manifest_json(manifest).dump(2), "round trip");
  fuzz::require(again == manifest, "round trip keeps the manifest");
  bool accepted = true;
  try {
    npu::check_npu_manifest(manifest, reference_image(), "fuzz.manifest.json", "reference.hex");
  } catch (const core::InputError&) {
    accepted = false;
  }
  fuzz::require(accepted == (manifest == npu::npu_manifest_of(reference_image())),
                "the check accepts exactly the image's own manifest");
  return 0;
}
