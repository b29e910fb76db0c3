// `seatorch export --hex`: writes an INT8 model as the Mini NPU's memory image ($readmemh
// .hex plus a JSON manifest beside it) for one NPU target (--target).
#include "command.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/npu/export_run.hpp"
#include "seatorch/npu/target.hpp"

#include <spdlog/spdlog.h>

#include <memory>

namespace seatorch::cli {
namespace {

struct ExportFlags {
  bool hex = false;
  npu::ExportRunOptions options;
  std::string model = "seatorch-out/model.int8.safetensors";
  std::string out = "seatorch-out/model.hex";
  bool json = false;
};

int run_export(ExportFlags f) {
  if (!f.hex) throw core::input_error("seatorch export writes the NPU image only: pass --hex");
  f.options.model = f.model;
  f.options.out = f.out;
  const npu::ExportRunSummary s = npu::run_export(f.options);
  const npu::NpuImage& image = s.image;
  spdlog::info("{} for the {} target: {} layers, {} words in {} sections, {} MACs per inference, {} NPU cycles, "
               "CRC-32 {:08x}",
               image.architecture(), image.target.name, image.layers.size(), image.total_words(), image.sections.size(),
               image.macs(), s.cycles_per_inference, image.crc);
  spdlog::info("wrote {} and {}", s.hex.string(), s.manifest.string());
  if (f.json) print_json(s.to_json());
  return 0;
}

}  // namespace

Command register_export(CLI::App& root) {
  auto f = std::make_shared<ExportFlags>();
  CLI::App* app = root.add_subcommand("export", "Export an INT8 model as the Mini NPU's memory image");
  app->add_flag("--hex", f->hex, "Write the $readmemh .hex image and its JSON manifest");
  app->add_option("--model", f->model, "INT8 model file")->capture_default_str();
  app->add_option("--out", f->out, "The .hex file; the manifest goes beside it")->capture_default_str();
  app->add_option("--target", f->options.target, "NPU target to lay the image out for")
      ->check(CLI::IsMember(npu::npu_target_names()))
      ->capture_default_str();
  app->add_flag("--json", f->json, "Print the manifest as one JSON object on stdout");
  return Command{app, [f] { return run_export(*f); }};
}

}  // namespace seatorch::cli
