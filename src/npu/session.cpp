// NpuSession: the stop-and-wait frame protocol with resends (docs/NPU.md, "UART frame
// protocol") over an NpuLink. Nothing here knows whether the link is simulated: time is the
// link's, budgets are bits and NPU cycles, and the counters come from the link.
#include "seatorch/npu/session.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/npu/rtl_pins.hpp"
#include "seatorch/npu/sim_link.hpp"
#include "seatorch/npu/timing.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

namespace seatorch::npu {
namespace {

using Clock = std::chrono::steady_clock;

// The largest response: an ECHO of a full payload, or a result with ActDepth logits.
constexpr std::size_t kMaxResponsePayload = 1 + std::max(kMaxPayload, kResultBytes + kActDepth);
static_assert(kIce40ActDepth <= kActDepth, "every target's logits must fit kMaxResponsePayload");
constexpr std::uint64_t kTimeoutMarginCycles = 2000;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }


bool resend_fixes(std::uint8_t error) {
  return error == kErrCrc || error == kErrFraming || error == kErrLength || error == kErrTimeout;
}

// Cycles the NPU may compute on `image`: twice the documented count (docs/NPU.md, Timing).
std::uint64_t compute_budget(const NpuImage& image) { return 2 * npu_inference_cycles(image); }

std::unique_ptr<NpuLink> simulated_link(const NpuSimOptions& options) {
  return std::make_unique<SimLink>(make_target_pins(options.target, options.netlist, options.trace_path),
                                   SimLineOptions{options.clks_per_bit, options.to_npu, options.from_npu});
}

}  // namespace

NpuSession::NpuSession(const NpuSimOptions& options) : NpuSession(simulated_link(options), options.max_attempts) {
  compute_budget_ = npu_max_answer_cycles(options.target);
}

NpuSession::NpuSession(std::unique_ptr<NpuLink> link, unsigned max_attempts)
    : link_(std::move(link)),
      max_attempts_(max_attempts),
      decoder_(kMaxResponsePayload),
      compute_budget_(npu_max_answer_cycles()) {
  if (!link_) throw std::invalid_argument("NpuSession needs a link");
  if (max_attempts == 0) throw core::input_error("an NPU session needs max_attempts of at least 1 (got 0)");
  sim_ = dynamic_cast<SimLink*>(link_.get());
  sync_line_stats();
}

NpuSession::~NpuSession() = default;

SimLink& NpuSession::sim() {
  if (sim_ == nullptr) throw std::logic_error("this NPU session's link is not simulated");
  return *sim_;
}

void NpuSession::run(std::uint64_t cycles) {
  const auto start = Clock::now();
  sim().run(cycles);
  stats_.link_seconds += seconds_since(start);
  sync_line_stats();
}

void NpuSession::sync_line_stats() {
  const LinkCounters c = link_->counters();
  stats_.cycles = c.cycles;
  stats_.bytes_to_npu = c.bytes_sent;
  stats_.bytes_from_npu = c.bytes_received;
  stats_.faults_to_npu = c.faults_sent;
  stats_.faults_from_npu = c.faults_received;
}

std::optional<DecodedFrame> NpuSession::next_event(LinkTime deadline) {
  const auto start = Clock::now();
  std::optional<DecodedFrame> event;
  while (!event) {
    const std::optional<UartByte> b = link_->receive(deadline);
    if (!b) break;
    event = decoder_.push(b->value, b->framing_error);
  }
  stats_.link_seconds += seconds_since(start);
  sync_line_stats();
  return event;
}

void NpuSession::send_raw(std::span<const std::uint8_t> bytes, std::optional<std::size_t> bad_stop_at) {
  if (bad_stop_at) {
    sim().send_raw(bytes, bad_stop_at);
  } else {
    link_->send(bytes);
  }
  sync_line_stats();
}

void NpuSession::send_break(unsigned bit_times) { sim().send_break(bit_times); }

std::optional<DecodedFrame> NpuSession::receive(std::uint64_t timeout_cycles) {
  return next_event(link_->deadline_after({0, timeout_cycles}));
}

// Before a resend: let the NPU finish what it is sending (a response we could not read),
// so that it listens again, and forget any half-decoded frame.
void NpuSession::wait_line_quiet() {
  const auto start = Clock::now();
  link_->discard_until_quiet();
  decoder_.reset();
  stats_.link_seconds += seconds_since(start);
  sync_line_stats();
}

// Long enough for the request's processing, the NPU's own frame timeout plus its NAK (when a
// byte of the request was lost), and the longest response, with margin.
LinkBudget NpuSession::response_timeout(const Frame& frame) const {
  const std::uint64_t processing = frame.type == kCmdInfer ? compute_budget_ : 4 * frame.payload.size() + 100;
  const std::uint64_t response_bytes =
      kFrameOverhead + 1 + std::max({frame.payload.size(), kResultBytes + outputs_, kStatusBytes});
  return {kTimeoutBits + 10 * (response_bytes + kFrameOverhead + 2), processing + kTimeoutMarginCycles};
}

// One send of `bytes` and the wait for its answer: the response, or nullopt with the reason
// in `problem` (the caller resends).
std::optional<Response> NpuSession::send_once(const Frame& frame, std::span<const std::uint8_t> bytes,
                                              std::string& problem) {
  ++stats_.requests;
  send_raw(bytes);
  // the timeout counts from the end of the request
  const LinkBudget response = response_timeout(frame);
  const LinkTime deadline = link_->deadline_after({10 * bytes.size() + response.wire_bits, response.npu_cycles});
  for (;;) {
    const std::optional<DecodedFrame> event = next_event(deadline);
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
  for (unsigned attempt = 0; attempt < max_attempts_; ++attempt) {
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
  throw core::input_error("the NPU did not accept {} after {} attempts (last: {}); {}", command_name(frame.type),
                          max_attempts_, problem, link_->silence_advice());
}

Response NpuSession::require_ack(const Frame& frame, const char* what) {
  Response response = request(frame);
  if (!response.ack) {
    throw core::input_error("the NPU refused {}: {} (docs/NPU.md, Error codes)", what, error_name(response.error));
  }
  return response;
}

NpuStatus NpuSession::status() { return parse_status(require_ack(status_request(next_seq()), "STATUS").data); }

std::vector<std::uint8_t> NpuSession::echo(std::span<const std::uint8_t> data) {
  return require_ack(echo_request(next_seq(), data), "ECHO").data;
}

void NpuSession::load(const NpuImage& image) {
  const auto start_time = Clock::now();
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
  stats_.load_seconds = seconds_since(start_time);
  stats_.load_bytes = stats_.bytes_to_npu + stats_.bytes_from_npu - start_bytes;
}

NpuInference NpuSession::infer(std::span<const std::uint8_t> pixels) {
  const auto start_time = Clock::now();
  const std::uint64_t start_cycles = stats_.cycles;
  const std::uint64_t start_bytes = stats_.bytes_to_npu + stats_.bytes_from_npu;
  const Response response = require_ack(infer_request(next_seq(), pixels), "INFER");
  const NpuResult result = parse_result(response.data);
  NpuInference inference{result.predicted, result.logits, result.cycles, stats_.cycles - start_cycles};
  ++stats_.inferences;
  stats_.npu_cycles += inference.npu_cycles;
  stats_.wire_cycles += inference.wire_cycles;
  stats_.inference_seconds += seconds_since(start_time);
  stats_.inference_bytes += stats_.bytes_to_npu + stats_.bytes_from_npu - start_bytes;
  return inference;
}

}  // namespace seatorch::npu
