// libFuzzer target: the int8 model file (quant/int8_file.hpp) over parsed safetensors. On
// every model it accepts, the integer reference inference runs on an all-0 and an all-255
// image (UBSan would flag an int32 overflow the validation promised to exclude) and the
// model survives a write/read round trip unchanged.
#include "fuzz_support.hpp"

#include "seatorch/core/argmax.hpp"
#include "seatorch/io/safetensors.hpp"
#include "seatorch/quant/int8_file.hpp"
#include "seatorch/quant/int8_model.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace seatorch;
  fuzz::reject_or_accept([&] {
    const io::SafetensorsFile file = io::parse_safetensors(std::span(data, size), "fuzz.safetensors");
    const quant::Int8ModelFile loaded = quant::int8_model_from_file(file, "fuzz.safetensors");
    const quant::Int8Model& model = loaded.model;
    for (std::uint8_t pixel : {std::uint8_t{0}, std::uint8_t{255}}) {
      const std::vector<std::uint8_t> image(model.inputs(), pixel);
      const std::vector<std::int8_t> logits = quant::int8_forward_ref(model, image);
      fuzz::require(logits.size() == model.outputs(), "one logit per output");
      fuzz::require(core::argmax(logits) < model.outputs(), "argmax is an output");
    }
    const quant::Int8ModelFile again =
        quant::int8_model_from_file(quant::int8_model_file(model, loaded.metadata), "round trip");
    fuzz::require(again.model.architecture() == model.architecture(), "round trip keeps the architecture");
    for (std::size_t k = 0; k < model.layers.size(); ++k) {
      const quant::Int8Layer& a = model.layers[k];
      const quant::Int8Layer& b = again.model.layers[k];
      fuzz::require(a.weight == b.weight && a.bias == b.bias && a.multiplier == b.multiplier && a.shift == b.shift &&
                        a.input_zero_point == b.input_zero_point && a.weight_zero_point == b.weight_zero_point &&
                        a.output_zero_point == b.output_zero_point && a.relu == b.relu,
                    "round trip keeps every integer parameter");
    }
  });
  return 0;
}
