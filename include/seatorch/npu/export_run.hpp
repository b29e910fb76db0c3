// One `seatorch export --hex` run as a library call: read an INT8 model file, lay it out for
// an NPU target (target.hpp) and write the .hex image and its manifest, which records the
// target. A model that does not fit the target's memories is refused with one line naming
// the limit, the model and the target, and nothing is written.
// Deliberately not here: printing and argument parsing.
#pragma once

#include "seatorch/npu/image.hpp"

#include <filesystem>
#include <string>

namespace seatorch::npu {

struct ExportRunOptions {
  std::filesystem::path model = "seatorch-out/model.int8.safetensors";
  std::filesystem::path out = "seatorch-out/model.hex";  // the manifest goes beside it
  std::string target = "default";                        // an npu_targets() name
};

// The image written.
NpuImage run_export(const ExportRunOptions& options);

}  // namespace seatorch::npu
