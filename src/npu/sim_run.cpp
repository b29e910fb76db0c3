// run_sim(): .hex -> UART load -> image stream -> comparison with the integer reference.
#include "seatorch/npu/sim_run.hpp"

#include "seatorch/error.hpp"
#include "seatorch/npu/hex.hpp"
#include "seatorch/npu/image.hpp"
#include "seatorch/quant/evaluate.hpp"
#include "seatorch/quant/int8_model.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>

namespace seatorch::npu {
namespace {

constexpr std::array<double, 3> kBaudRates{115200.0, 921600.0, 3000000.0};
constexpr double kBitsPerByte = 10.0;  // start + 8 data + stop

double fraction(std::size_t part, std::size_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

double SimRunSummary::accuracy() const { return fraction(correct, images); }
double SimRunSummary::agreement() const { return fraction(class_agreement, images); }
double SimRunSummary::logits_agreement_rate() const { return fraction(logits_agreement, images); }

nlohmann::json SimRunSummary::to_json() const {
  const double clock_hz = clock_mhz * 1e6;
  nlohmann::json at_baud = nlohmann::json::array();
  for (double baud : kBaudRates) {
    const double load_s = static_cast<double>(load_bytes) * kBitsPerByte / baud;
    const double infer_s = inference_bytes * kBitsPerByte / baud + cycles_per_inference / clock_hz;
    at_baud.push_back({{"baud", baud}, {"load_seconds", load_s}, {"inference_seconds", infer_s},
                       {"images_per_second", 1.0 / infer_s}});
  }
  return {{"dataset", dataset},
          {"architecture", architecture},
          {"images", images},
          {"accuracy", accuracy()},
          {"agreement", agreement()},
          {"logits_agreement", logits_agreement_rate()},
          {"first_mismatch", first_mismatch == SIZE_MAX ? nlohmann::json() : nlohmann::json(first_mismatch)},
          {"cycles_per_inference", cycles_per_inference},
          {"ideal_cycles_per_inference", ideal_cycles},
          {"mac_utilization", mac_utilization},
          {"clks_per_bit", clks_per_bit},
          {"clock_mhz", clock_mhz},
          {"load_bytes", load_bytes},
          {"load_cycles", load_cycles},
          {"load_seconds_at_clock", static_cast<double>(load_cycles) / clock_hz},
          {"inference_bytes", inference_bytes},
          {"wire_cycles_per_inference", wire_cycles_per_inference},
          {"inference_seconds_at_clock", wire_cycles_per_inference / clock_hz},
          {"at_baud", at_baud},
          {"sim_cycles", stats.cycles},
          {"sim_seconds", stats.sim_seconds},
          {"sim_cycles_per_second", stats.cycles_per_second()},
          {"resends", stats.resends},
          {"naks", stats.naks},
          {"timeouts", stats.timeouts}};
}

SimRunSummary run_sim(const SimRunOptions& options, const SimProgress& progress) {
  if (!(options.clock_mhz > 0.0)) throw input_error("--clock-mhz must be positive (got {})", options.clock_mhz);
  const NpuImage image = read_npu_hex(options.hex);
  // The reference is the integer model the image itself encodes, so a wrong exporter cannot
  // hide behind a matching wrong simulator.
  const quant::Int8Model reference = decode_npu_image(image);
  DataOptions data_options = options.data;
  const DataSplit data = load_dataset(data_options);
  if (data.test.features != image.input_size()) {
    throw input_error("{} expects {} inputs but {} images have {} pixels", options.hex.string(), image.input_size(),
                      data.name, data.test.features);
  }
  const std::size_t n = options.images == 0 ? data.test.size() : std::min(options.images, data.test.size());
  Dataset test = data.test;
  test.x.resize(n * test.features);
  test.y.resize(n);
  const std::vector<std::uint8_t> pixels = quant::dataset_pixels(test);

  NpuSimOptions sim;
  sim.clks_per_bit = options.clks_per_bit;
  sim.trace_path = options.trace;
  NpuSession session(sim);
  spdlog::info("loading {} ({} words, CRC {:08x}) over the UART at {} clocks per bit", image.architecture(),
               image.total_words(), image.crc, options.clks_per_bit);
  session.load(image);

  SimRunSummary s;
  s.dataset = data.name;
  s.architecture = image.architecture();
  s.images = n;
  s.clks_per_bit = options.clks_per_bit;
  s.clock_mhz = options.clock_mhz;
  s.load_bytes = session.stats().load_bytes;
  s.load_cycles = session.stats().load_cycles;
  for (std::size_t i = 0; i < n; ++i) {
    const auto image_pixels = std::span<const std::uint8_t>(pixels).subspan(i * test.features, test.features);
    const NpuInference answer = session.infer(image_pixels);
    const std::vector<std::int8_t> expected = quant::int8_forward_ref(reference, image_pixels);
    const bool same_class = answer.predicted == quant::argmax_int8(expected);
    const bool same_logits = answer.logits == expected;
    s.class_agreement += same_class ? 1 : 0;
    s.logits_agreement += same_logits ? 1 : 0;
    if ((!same_class || !same_logits) && s.first_mismatch == SIZE_MAX) s.first_mismatch = i;
    s.correct += static_cast<std::int32_t>(answer.predicted) == test.y[i] ? 1 : 0;
    if (progress) progress(i + 1, n);
  }
  s.stats = session.stats();
  const double images = static_cast<double>(std::max<std::size_t>(n, 1));
  s.cycles_per_inference = static_cast<double>(s.stats.npu_cycles) / images;
  s.ideal_cycles = static_cast<double>(image.macs()) / static_cast<double>(image.lanes);
  s.mac_utilization = s.cycles_per_inference > 0 ? s.ideal_cycles / s.cycles_per_inference : 0.0;
  s.inference_bytes = static_cast<double>(s.stats.inference_bytes) / images;
  s.wire_cycles_per_inference = static_cast<double>(s.stats.wire_cycles) / images;
  return s;
}

}  // namespace seatorch::npu
