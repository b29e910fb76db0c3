// One `seatorch export --hex` run as a library call: read an INT8 model file, lay it out for
// an NPU target (target.hpp) and write the .hex image and its manifest, which records the
// target. A model that does not fit the target's memories is refused with one line naming
// the limit, the model and the target, and nothing is written.
// Deliberately not here: printing and argument parsing.
#pragma once

#include "seatorch/npu/image.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <string>

namespace seatorch::npu {

struct ExportRunOptions {
  std::filesystem::path model = "seatorch-out/model.int8.safetensors";
  std::filesystem::path out = "seatorch-out/model.hex";  // the manifest goes beside it
  std::string target = "default";                        // an npu_targets() name
};

struct ExportRunSummary {
  NpuImage image;             // what the .hex holds
  std::filesystem::path hex;  // the files written
  std::filesystem::path manifest;
  std::size_t cycles_per_inference = 0;  // the NPU's, for this image (timing.hpp)

  // The --json object: the manifest, plus "hex", "manifest" and "npu_cycles_per_inference".
  [[nodiscard]] nlohmann::json to_json() const;
};

ExportRunSummary run_export(const ExportRunOptions& options);

}  // namespace seatorch::npu
