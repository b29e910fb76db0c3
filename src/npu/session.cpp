// NpuSession: the Verilated NPU of a target (its pins) behind a bit-level UART, and the
// stop-and-wait frame protocol with resends (docs/NPU.md, "UART frame protocol").
#include "seatorch/npu/session.hpp"

#include "seatorch/error.hpp"
#include "seatorch/npu/rtl_pins.hpp"
#include "seatorch/npu/uart.hpp"

#include <algorithm>
#include <chrono>
#include <deque>

namespace seatorch::npu {
namespace {

constexpr unsigned kResetCycles = 4;
constexpr std::uint64_t kTimeoutMarginCycles = 2000;

// The largest response: an ECHO of a full payload, or a result with ActDepth logits.
std::size_t max_response_payload(const NpuLimits& limits) {
  return 1 + std::max(kMaxPayload, kResultBytes + limits.act_depth);
}

// Before load(): twice what the largest image the target can hold may take - every weight
// row, every row through the requantizer one interval apart, and each layer's overhead.
std::uint64_t default_compute_budget(const NpuTarget& target) {
  const NpuLimits& l = target.limits;
  return 2 * (l.wmem_depth + std::uint64_t{target.requant_interval()} * l.row_depth +
              l.max_layers * (l.act_depth + 64 + target.requant_latency()));
}

// The Verilated build that the target names, or the gate-level netlist of its FPGA build.
std::unique_ptr<NpuPins> make_pins(const NpuTarget& target, bool netlist, const std::filesystem::path& trace) {
  if (netlist) {
    if (target.rtl_top != "npu_ice40") {
      throw input_error("the {} target has no FPGA netlist to simulate; only icebreaker (npu_ice40) has one",
                        target.name);
    }
    return make_netlist_pins(trace);
  }
  if (target.rtl_top == "npu_top") return make_rtl_pins(trace);
  if (target.rtl_top == "npu_ice40") return make_ice40_pins(trace);
  throw input_error("the {} target names the RTL top '{}', which this seatorch has no Verilated model of", target.name,
                    target.rtl_top);
}

bool resend_fixes(std::uint8_t error) {
  return error == kErrCrc || error == kErrFraming || error == kErrLength || error == kErrTimeout;
}

// Cycles the NPU may compute on `image`: twice the documented count (docs/NPU.md, Timing).
std::uint64_t compute_budget(const NpuImage& image) { return 2 * npu_inference_cycles(image); }

}  // namespace

struct NpuSession::Model {
  explicit Model(const NpuSimOptions& options)
      : pins(make_pins(options.target, options.netlist, options.trace_path)),
        line_out(options.clks_per_bit),
        line_in(options.clks_per_bit),
        wire_to_npu(options.clks_per_bit, options.to_npu),
        wire_from_npu(options.clks_per_bit, options.from_npu),
        decoder(max_response_payload(options.target.limits)) {
    pins->set_clks_per_bit(static_cast<std::uint16_t>(options.clks_per_bit));
  }

  // One clock cycle; each direction of the line passes through its wire's faults.
  void cycle() {
    rx_level = wire_from_npu.tick(pins->cycle(wire_to_npu.tick(line_out.tick())));
    if (std::optional<UartByte> b = line_in.tick(rx_level)) {
      ++bytes_in;
      if (std::optional<DecodedFrame> event = decoder.push(b->value, b->framing_error)) {
        events.push_back(std::move(*event));
      }
    }
  }

  std::unique_ptr<NpuPins> pins;
  UartLineTx line_out;  // host -> NPU
  UartLineRx line_in;   // NPU -> host
  UartLineFaults wire_to_npu;
  UartLineFaults wire_from_npu;
  FrameDecoder decoder;
  bool rx_level = true;  // the NPU's transmit line as the host sees it
  std::deque<DecodedFrame> events;
  std::uint64_t bytes_in = 0;
};

NpuSession::NpuSession(const NpuSimOptions& options)
    : options_(options),
      model_(std::make_unique<Model>(options)),
      compute_budget_(default_compute_budget(options.target)),
      outputs_(options.target.limits.act_depth) {
  if (options.max_attempts == 0) throw input_error("NpuSimOptions::max_attempts must be at least 1");
  run(kResetCycles);
  model_->pins->set_reset(false);
  run(kResetCycles);
}

NpuSession::~NpuSession() = default;

void NpuSession::tick() {
  model_->cycle();
  ++stats_.cycles;
}

void NpuSession::run(std::uint64_t cycles) {
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t c = 0; c < cycles; ++c) tick();
  stats_.sim_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  sync_line_stats();
}

void NpuSession::sync_line_stats() {
  stats_.bytes_from_npu = model_->bytes_in;
  stats_.faults_to_npu = model_->wire_to_npu.counts();
  stats_.faults_from_npu = model_->wire_from_npu.counts();
}

std::optional<DecodedFrame> NpuSession::run_until_event(std::uint64_t deadline) {
  const auto start = std::chrono::steady_clock::now();
  std::optional<DecodedFrame> event;
  while (stats_.cycles < deadline || !model_->line_out.idle()) {
    if (!model_->events.empty() && model_->line_out.idle()) {
      event = std::move(model_->events.front());
      model_->events.pop_front();
      break;
    }
    tick();
  }
  stats_.sim_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  sync_line_stats();
  return event;
}

void NpuSession::send_raw(std::span<const std::uint8_t> bytes, std::optional<std::size_t> bad_stop_at) {
  for (std::size_t i = 0; i < bytes.size(); ++i) model_->line_out.push(bytes[i], bad_stop_at != i);
  stats_.bytes_to_npu += bytes.size();
}

void NpuSession::send_break(unsigned bit_times) { model_->line_out.push_break(bit_times * options_.clks_per_bit); }

std::optional<DecodedFrame> NpuSession::receive(std::uint64_t timeout_cycles) {
  return run_until_event(stats_.cycles + timeout_cycles);
}

// Before a resend: let the NPU finish what it is sending (a response we could not read),
// so that it listens again, and forget any half-decoded frame.
void NpuSession::wait_line_quiet() {
  const std::uint64_t quiet = 20ULL * options_.clks_per_bit;
  std::uint64_t idle = 0;
  while (idle < quiet) {
    tick();
    idle = (model_->rx_level && !model_->line_in.busy()) ? idle + 1 : 0;
  }
  model_->decoder.reset();
  model_->events.clear();
  sync_line_stats();
}

// Long enough for the request's processing, the NPU's own frame timeout plus its NAK (when a
// byte of the request was lost), and the longest response, with margin.
std::uint64_t NpuSession::response_timeout(const Frame& frame) const {
  const std::uint64_t bit = options_.clks_per_bit;
  const std::uint64_t processing = frame.type == kCmdInfer ? compute_budget_ : 4 * frame.payload.size() + 100;
  const std::uint64_t response_bytes =
      kFrameOverhead + 1 + std::max({frame.payload.size(), kResultBytes + outputs_, kStatusBytes});
  return processing + (kTimeoutBits + 10 * (response_bytes + kFrameOverhead + 2)) * bit + kTimeoutMarginCycles;
}

// One send of `bytes` and the wait for its answer: the response, or nullopt with the reason
// in `problem` (the caller resends).
std::optional<Response> NpuSession::send_once(const Frame& frame, std::span<const std::uint8_t> bytes,
                                              std::string& problem) {
  ++stats_.requests;
  send_raw(bytes);
  // the timeout counts from the end of the request
  const std::uint64_t deadline = stats_.cycles + 10ULL * bytes.size() * options_.clks_per_bit + response_timeout(frame);
  for (;;) {
    const std::optional<DecodedFrame> event = run_until_event(deadline);
    if (!event) {
      ++stats_.timeouts;
      problem = "no answer in time";
      return std::nullopt;
    }
    if (event->event != FrameEvent::kFrame) {
      ++stats_.bad_responses;
      problem = "a corrupted response";
      return std::nullopt;
    }
    if (event->frame.seq != frame.seq) continue;  // a stale response to an earlier request
    const std::optional<Response> response = parse_response(event->frame);
    if (!response) {
      ++stats_.bad_responses;
      problem = "a malformed response";
      return std::nullopt;
    }
    if (response->ack) return response;
    ++stats_.naks;
    if (!resend_fixes(response->error)) return response;
    problem = "NAK " + error_name(response->error);
    return std::nullopt;
  }
}

Response NpuSession::request(const Frame& frame) {
  const std::vector<std::uint8_t> bytes = encode_frame(frame);
  const std::uint64_t start = stats_.cycles;
  std::string problem = "no answer";
  for (unsigned attempt = 0; attempt < options_.max_attempts; ++attempt) {
    if (attempt > 0) ++stats_.resends;
    const std::uint64_t attempt_start = stats_.cycles;
    const std::uint64_t to_npu_hits = stats_.faults_to_npu.bytes_hit;
    const std::uint64_t from_npu_hits = stats_.faults_from_npu.bytes_hit;
    const std::optional<Response> response = send_once(frame, bytes, problem);
    // Before judging a failed send, let the NPU finish what it is sending (a response we
    // could not read) so that it listens again: its bytes belong to this send.
    if (!response) wait_line_quiet();
    const bool request_hit = stats_.faults_to_npu.bytes_hit != to_npu_hits;
    const bool response_hit = stats_.faults_from_npu.bytes_hit != from_npu_hits;
    if (request_hit || response_hit) {
      ++stats_.faulted_sends;
      NpuStats::CommandFaults& by_command = stats_.faults_by_command[frame.type];
      by_command.requests_hit += request_hit ? 1 : 0;
      by_command.responses_hit += response_hit ? 1 : 0;
    }
    if (response) {
      if (request_hit || response_hit) ++stats_.undetected;
      stats_.retry_cycles += attempt_start - start;
      return *response;
    }
    ++stats_.failed_sends;
  }
  stats_.retry_cycles += stats_.cycles - start;
  throw input_error("the NPU did not accept {} after {} attempts (last: {}); check the line settings "
                    "(clocks per bit)",
                    command_name(frame.type), options_.max_attempts, problem);
}

Response NpuSession::require_ack(const Frame& frame, const char* what) {
  Response response = request(frame);
  if (!response.ack) {
    throw input_error("the NPU refused {}: {} (docs/NPU.md, Error codes)", what, error_name(response.error));
  }
  return response;
}

NpuStatus NpuSession::status() { return parse_status(require_ack(status_request(next_seq()), "STATUS").data); }

std::vector<std::uint8_t> NpuSession::echo(std::span<const std::uint8_t> data) {
  return require_ack(echo_request(next_seq(), data), "ECHO").data;
}

void NpuSession::load(const NpuImage& image) {
  const std::uint64_t start_cycles = stats_.cycles;
  const std::uint64_t start_bytes = stats_.bytes_to_npu + stats_.bytes_from_npu;
  require_ack(load_begin_request(next_seq()), "LOAD_BEGIN");
  constexpr std::size_t kChunkWords = kMaxChunkBytes / 4;
  std::uint16_t index = 0;
  for (const NpuSection& section : image.sections) {
    for (std::size_t at = 0; at < section.words.size(); at += kChunkWords) {
      const std::size_t n = std::min(kChunkWords, section.words.size() - at);
      const std::span<const std::uint32_t> words(section.words.data() + at, n);
      require_ack(load_chunk_request(next_seq(), index++, section.address + static_cast<std::uint32_t>(at), words),
                  "LOAD_CHUNK");
    }
  }
  require_ack(load_end_request(next_seq(), image.crc), "LOAD_END");
  outputs_ = image.output_size();
  compute_budget_ = compute_budget(image);
  stats_.load_cycles = stats_.cycles - start_cycles;
  stats_.load_bytes = stats_.bytes_to_npu + stats_.bytes_from_npu - start_bytes;
}

NpuInference NpuSession::infer(std::span<const std::uint8_t> pixels) {
  const std::uint64_t start_cycles = stats_.cycles;
  const std::uint64_t start_bytes = stats_.bytes_to_npu + stats_.bytes_from_npu;
  const Response response = require_ack(infer_request(next_seq(), pixels), "INFER");
  const NpuResult result = parse_result(response.data);
  NpuInference inference{result.predicted, result.logits, result.cycles, stats_.cycles - start_cycles};
  ++stats_.inferences;
  stats_.npu_cycles += inference.npu_cycles;
  stats_.wire_cycles += inference.wire_cycles;
  stats_.inference_bytes += stats_.bytes_to_npu + stats_.bytes_from_npu - start_bytes;
  return inference;
}

}  // namespace seatorch::npu
