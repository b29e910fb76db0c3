// run_export(): INT8 model file -> NPU image for a target -> .hex and manifest.
#include "seatorch/npu/export_run.hpp"

#include "seatorch/npu/hex.hpp"
#include "seatorch/npu/image_builder.hpp"
#include "seatorch/quant/int8_file.hpp"

namespace seatorch::npu {

NpuImage run_export(const ExportRunOptions& options) {
  // The target first: a wrong name needs no model file to be reported.
  const NpuTarget& target = npu_target(options.target);
  const quant::Int8ModelFile int8 = quant::load_int8_model(options.model);
  NpuImage image = build_npu_image(int8.model, target);
  write_npu_hex(options.out, image);
  return image;
}

}  // namespace seatorch::npu
