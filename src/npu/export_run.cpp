// run_export(): INT8 model file -> NPU image for a target -> .hex and manifest.
#include "seatorch/npu/export_run.hpp"

#include "seatorch/io/atomic_file.hpp"
#include "seatorch/npu/hex.hpp"
#include "seatorch/npu/image_builder.hpp"
#include "seatorch/npu/manifest.hpp"
#include "seatorch/npu/timing.hpp"
#include "seatorch/quant/int8_file.hpp"

namespace seatorch::npu {

nlohmann::json ExportRunSummary::to_json() const {
  nlohmann::json json = npu_manifest(image);
  json["hex"] = hex.string();
  json["manifest"] = manifest.string();
  json["npu_cycles_per_inference"] = cycles_per_inference;
  return json;
}

ExportRunSummary run_export(const ExportRunOptions& options) {
  // The target first: a wrong name needs no model file to be reported.
  const NpuTarget& target = npu_target(options.target);
  io::check_not_input(options.out, options.model, "the int8 model being exported");
  io::check_not_input(npu_manifest_path(options.out), options.model, "the int8 model being exported");
  const quant::Int8ModelFile int8 = quant::load_int8_model(options.model);
  ExportRunSummary summary{build_npu_image(int8.model, target), options.out, npu_manifest_path(options.out), 0};
  summary.cycles_per_inference = npu_inference_cycles(summary.image);
  write_npu_hex(options.out, summary.image);
  return summary;
}

}  // namespace seatorch::npu
