// NpuImage -> Int8Model, and the checks that make sections read from a file an image: the
// layout of docs/NPU.md, "The model image" and "Layer descriptors", in the direction of the
// host. The reader checks the NPU's own rules (the sections' order, addresses and CRC, the
// header, descriptors that fit the target and read only words the sections hold, 5-bit
// shift words), then the model the image encodes against the int8 rules
// (quant::validate_int8_inference), so a file cannot hold what the builder would refuse.
#pragma once

#include "seatorch/npu/image.hpp"
#include "seatorch/npu/target.hpp"
#include "seatorch/quant/int8_model.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace seatorch::npu {

// An image from sections read elsewhere (a .hex file named by `source`), checked as above
// for `target`; fills the sections' names and the layer table. Throws InputError naming
// `source` and the problem.
NpuImage npu_image_from_sections(std::vector<NpuSection> sections, std::uint32_t crc, std::string_view source,
                                 const NpuTarget& target = default_npu_target());

// The integer model an image encodes (everything inference uses; no float scales). Running
// int8_forward_ref on it is the reference for an image read back from a .hex file.
quant::Int8Model decode_npu_image(const NpuImage& image);

}  // namespace seatorch::npu
