// run_sim(): .hex -> UART load -> image stream -> comparison with the integer reference, on
// the simulated NPU or on the one at a serial port.
#include "seatorch/npu/sim_run.hpp"

#include "seatorch/core/argmax.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/io/atomic_file.hpp"
#include "seatorch/npu/hex.hpp"
#include "seatorch/npu/image.hpp"
#include "seatorch/npu/image_decode.hpp"
#include "seatorch/npu/rtl_pins.hpp"
#include "seatorch/npu/sim_link.hpp"
#include "seatorch/quant/evaluate.hpp"
#include "seatorch/quant/int8_model.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace seatorch::npu {
namespace {

constexpr std::array<double, 3> kBaudRates{115200.0, 921600.0, 3000000.0};
constexpr double kBitsPerByte = 10.0;  // start + 8 data + stop

double fraction(std::size_t part, std::size_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

// Below this chance that the largest exchange crosses the line intact, a run would be
// almost all resends: refuse the rates instead of simulating for hours.
constexpr double kMinIntactProbability = 0.01;
// Sends of one request before giving up: a clean line never needs a resend; on a faulty line
// giving up must be rarer than this, per request.
constexpr unsigned kCleanLineAttempts = 8;
constexpr double kGiveUpProbability = 1e-9;

// The most sends a request may need at `rates`, judged by the largest exchange of the run:
// a full LOAD_CHUNK and its ACK, or an INFER and its result.
unsigned attempts_for(const LineFaultRates& rates, const NpuImage& image, const std::string& hex) {
  if (!rates.any()) return kCleanLineAttempts;
  const std::size_t chunk = kFrameOverhead + kMaxPayload + kFrameOverhead + 1;
  const std::size_t infer =
      kFrameOverhead + image.input_size() + kFrameOverhead + 1 + kResultBytes + image.output_size();
  const std::size_t bytes = std::max(chunk, infer);
  const double intact = intact_probability(rates, bytes);
  if (intact < kMinIntactProbability) {
    // Each rate alone at which the exchange is still intact with the minimum probability.
    const double n = static_cast<double>(bytes);
    const double max_ber = 1.0 - std::pow(kMinIntactProbability, 1.0 / (n * kWireBitsPerByte));
    const double max_drop = 1.0 - std::pow(kMinIntactProbability, 1.0 / n);
    throw core::input_error("at a bit-error rate of {} and a drop rate of {}, a {}-byte exchange with the NPU ({}) "
                            "arrives intact with probability {:.2g}: nearly every send would fail; use a bit-error "
                            "rate below {:.1g} and a drop rate below {:.1g}",
                            rates.bit_error_rate, rates.drop_rate, bytes, hex, intact, max_ber, max_drop);
  }
  const double attempts = std::ceil(std::log(kGiveUpProbability) / std::log1p(-intact));
  return std::max(kCleanLineAttempts, static_cast<unsigned>(attempts));
}

nlohmann::json counts_json(const LineFaultCounts& c) {
  return {{"bytes", c.bytes}, {"bytes_hit", c.bytes_hit}, {"bit_flips", c.bit_flips}, {"drops", c.drops}};
}

}  // namespace

double SimRunSummary::accuracy() const { return fraction(correct, images); }
double SimRunSummary::agreement() const { return fraction(class_agreement, images); }
double SimRunSummary::logits_agreement_rate() const { return fraction(logits_agreement, images); }

double SimRunSummary::retry_cost() const {
  const std::uint64_t clean = stats.cycles - stats.retry_cycles;
  return clean == 0 ? 0.0 : static_cast<double>(stats.retry_cycles) / static_cast<double>(clean);
}

double SimRunSummary::seconds_per_image() const {
  return images == 0 ? 0.0 : stats.inference_seconds / static_cast<double>(images);
}

nlohmann::json SimRunSummary::to_json() const {
  const double clock_hz = clock_mhz * 1e6;
  nlohmann::json at_baud = nlohmann::json::array();
  for (double baud : kBaudRates) {
    const double load_s = static_cast<double>(load_bytes) * kBitsPerByte / baud;
    const double infer_s = inference_bytes * kBitsPerByte / baud + cycles_per_inference / clock_hz;
    at_baud.push_back({{"baud", baud},
                       {"load_seconds", load_s},
                       {"inference_seconds", infer_s},
                       {"images_per_second", 1.0 / infer_s}});
  }
  nlohmann::json by_command = nlohmann::json::object();
  for (const auto& [command, hits] : stats.faults_by_command) {
    by_command[command_name(command)] = {{"requests_hit", hits.requests_hit}, {"responses_hit", hits.responses_hit}};
  }
  const nlohmann::json faults_json = {{"bit_error_rate", faults.bit_error_rate},
                                      {"drop_rate", faults.drop_rate},
                                      {"seed", seed},
                                      {"to_npu", counts_json(stats.faults_to_npu)},
                                      {"from_npu", counts_json(stats.faults_from_npu)},
                                      {"injected", stats.faults_to_npu.faults() + stats.faults_from_npu.faults()},
                                      {"sends_hit", stats.faulted_sends},
                                      {"detected", stats.faulted_sends - stats.undetected},
                                      {"undetected", stats.undetected},
                                      {"failed_sends", stats.failed_sends},
                                      {"bad_responses", stats.bad_responses},
                                      {"max_attempts", max_attempts},
                                      {"retry_cycles", stats.retry_cycles},
                                      {"retry_cost", retry_cost()},
                                      {"by_command", by_command}};
  const nlohmann::json first = first_mismatch == SIZE_MAX ? nlohmann::json() : nlohmann::json(first_mismatch);
  nlohmann::json j = {{"target", target},
                      {"model", model},
                      {"lanes", lanes},
                      {"dataset", dataset},
                      {"architecture", architecture},
                      {"images", images},
                      {"accuracy", accuracy()},
                      {"agreement", agreement()},
                      {"logits_agreement", logits_agreement_rate()},
                      {"first_mismatch", first},
                      {"cycles_per_inference", cycles_per_inference},
                      {"ideal_cycles_per_inference", ideal_cycles},
                      {"mac_utilization", mac_utilization},
                      {"clock_mhz", clock_mhz},
                      {"load_bytes", load_bytes},
                      {"inference_bytes", inference_bytes},
                      {"at_baud", at_baud},
                      {"requests", stats.requests},
                      {"resends", stats.resends},
                      {"naks", stats.naks},
                      {"timeouts", stats.timeouts},
                      {"bad_responses", stats.bad_responses}};
  if (!port.empty()) {
    // The host cannot count the NPU's clock on a real line: wall time instead.
    j["port"] = port;
    j["baud"] = baud;
    j["load_seconds"] = stats.load_seconds;
    j["seconds_per_image"] = seconds_per_image();
    j["images_per_second"] = seconds_per_image() > 0 ? 1.0 / seconds_per_image() : 0.0;
    j["bytes_to_npu"] = stats.bytes_to_npu;
    j["bytes_from_npu"] = stats.bytes_from_npu;
    j["link_seconds"] = stats.link_seconds;
    return j;
  }
  j["clks_per_bit"] = clks_per_bit;
  j["load_cycles"] = load_cycles;
  j["load_seconds_at_clock"] = static_cast<double>(load_cycles) / clock_hz;
  j["wire_cycles_per_inference"] = wire_cycles_per_inference;
  j["inference_seconds_at_clock"] = wire_cycles_per_inference / clock_hz;
  j["sim_cycles"] = stats.cycles;
  j["sim_seconds"] = stats.link_seconds;
  j["sim_cycles_per_second"] = stats.cycles_per_second();
  j["faults"] = faults_json;
  return j;
}

SimRunSummary run_sim(const SimRunOptions& options, const SimProgress& progress) {
  if (!(options.clock_mhz >= 0.0 && std::isfinite(options.clock_mhz))) {
    throw core::input_error("the clock must be positive, or 0 for the target's (got {} MHz)", options.clock_mhz);
  }
  check_line_fault_rates(options.faults);
  const bool on_port = !options.serial.port.empty();
  if (on_port && (!options.trace.empty() || options.faults.any() || options.netlist)) {
    throw core::input_error(
        "a trace, injected line faults and the gate-level netlist exist only on the simulated line, "
        "not on the serial port {}",
        options.serial.port.string());
  }
  if (!options.trace.empty()) {
    io::check_output_path(options.trace);
    io::check_not_input(options.trace, options.hex, "the NPU image being simulated");
  }
  // The port first: a missing device is reported before the files are read.
  std::unique_ptr<NpuLink> link;
  if (on_port) link = std::make_unique<SerialLink>(options.serial);
  const NpuImage image = read_npu_hex(options.hex, options.target);
  const double clock_mhz = options.clock_mhz > 0.0 ? options.clock_mhz : image.target.clock_mhz;
  // The reference is the integer model the image itself encodes, so a wrong exporter cannot
  // hide behind a matching wrong simulator.
  const quant::Int8Model reference = decode_npu_image(image);
  data::DataOptions data_options = options.data;
  data_options.test_only = true;  // only the test images are used
  const data::DataSplit data = data::load_dataset(data_options);
  if (data.test.features != image.input_size()) {
    throw core::input_error("{} expects {} inputs but {} images have {} pixels", options.hex.string(),
                            image.input_size(), data.name, data.test.features);
  }
  const std::size_t n = options.images == 0 ? data.test.size() : std::min(options.images, data.test.size());
  const data::Dataset test = data.test.slice(0, n);
  const std::span<const std::uint8_t> pixels = data::image_pixels(test, "the Mini NPU");  // (n, features)

  const unsigned max_attempts = attempts_for(options.faults, image, options.hex.string());
  if (on_port) {
    spdlog::info("loading {} ({} words, CRC {:08x}) over {} at {} baud", image.architecture(), image.total_words(),
                 image.crc, options.serial.port.string(), options.serial.baud);
  } else {
    SimLineOptions line;
    line.clks_per_bit = options.clks_per_bit;
    if (options.faults.any()) {
      // One stream of faults per direction, both from the one seed.
      line.to_npu = random_line_faults(options.faults, 2 * options.seed);
      line.from_npu = random_line_faults(options.faults, 2 * options.seed + 1);
    }
    link = std::make_unique<SimLink>(make_target_pins(image.target, options.netlist, options.trace), line);
    spdlog::info("loading {} ({} words, CRC {:08x}) into the {} target's NPU ({}{}) over the UART at {} clocks per bit",
                 image.architecture(), image.total_words(), image.crc, image.target.name, image.target.rtl_top,
                 options.netlist ? ", gate-level netlist" : "", options.clks_per_bit);
  }
  NpuSession session(std::move(link), max_attempts);
  session.load(image);

  SimRunSummary s;
  s.target = image.target.name;
  s.model = on_port ? "a board on a serial port" : options.netlist ? "gate-level netlist" : "RTL";
  s.target_description = image.target.description;
  s.lanes = image.lanes();
  s.dataset = data.name;
  s.architecture = image.architecture();
  s.images = n;
  s.clks_per_bit = on_port ? 0 : options.clks_per_bit;
  s.clock_mhz = clock_mhz;
  s.faults = options.faults;
  s.seed = options.seed;
  s.max_attempts = max_attempts;
  if (on_port) {
    s.port = options.serial.port.string();
    s.baud = options.serial.baud;
  }
  s.load_bytes = session.stats().load_bytes;
  s.load_cycles = session.stats().load_cycles;
  for (std::size_t i = 0; i < n; ++i) {
    const auto image_pixels = pixels.subspan(i * test.features, test.features);
    const NpuInference answer = session.infer(image_pixels);
    const std::vector<std::int8_t> expected = quant::int8_forward_ref(reference, image_pixels);
    const bool same_class = answer.predicted == core::argmax(expected);
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
  s.ideal_cycles = static_cast<double>(image.macs()) / static_cast<double>(image.lanes());
  s.mac_utilization = s.cycles_per_inference > 0 ? s.ideal_cycles / s.cycles_per_inference : 0.0;
  s.inference_bytes = static_cast<double>(s.stats.inference_bytes) / images;
  s.wire_cycles_per_inference = static_cast<double>(s.stats.wire_cycles) / images;
  return s;
}

}  // namespace seatorch::npu
