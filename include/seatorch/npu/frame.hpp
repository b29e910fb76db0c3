// The NPU's frames (docs/NPU.md, "UART frame protocol"), host side:
//   A5 5A | type | seq | len u16 LE | payload | crc32 LE over type..payload
// encode_frame() builds one; FrameDecoder finds frames in a byte stream exactly as the
// NPU's npu_frame_rx does (sync hunt, length limit, framing errors, CRC). The request
// builders and response parsers give the payloads of docs/NPU.md's command table names.
// Deliberately no timing: timeouts are the session's business (it counts clock cycles).
#pragma once

#include "seatorch/npu/constants.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace seatorch::npu {

inline constexpr std::size_t kFrameOverhead = 10;  // sync 2, type, seq, len 2, crc 4

struct Frame {
  std::uint8_t type = 0;
  std::uint8_t seq = 0;
  std::vector<std::uint8_t> payload;
};

std::vector<std::uint8_t> encode_frame(const Frame& frame);

// What the decoder makes of the bytes it has seen.
enum class FrameEvent {
  kFrame,         // a complete frame with a good CRC
  kCrcError,      // complete, bad CRC
  kFramingError,  // complete, a byte had a low stop bit
  kLengthError,   // the length field exceeds the limit; the rest is skipped
};

struct DecodedFrame {
  FrameEvent event = FrameEvent::kFrame;
  Frame frame;  // type/seq/len as received (payload only for kFrame)
};

class FrameDecoder {
 public:
  explicit FrameDecoder(std::size_t max_payload) : max_payload_(max_payload) {}

  // One received byte (framing_error: its stop bit was low); returns an event when a frame
  // ends or is abandoned.
  std::optional<DecodedFrame> push(std::uint8_t byte, bool framing_error = false);

  // Forgets a partial frame (a timeout: the rest of it is not coming).
  void reset();
  [[nodiscard]] bool in_frame() const { return state_ >= State::kType; }

 private:
  enum class State { kHunt, kSync1, kType, kSeq, kLen0, kLen1, kPayload, kCrc };
  std::size_t max_payload_;
  State state_ = State::kHunt;
  Frame frame_;
  std::size_t length_ = 0;
  std::uint32_t crc_received_ = 0;
  std::size_t crc_bytes_ = 0;
  bool framing_error_ = false;
};

// ---- requests ----
Frame status_request(std::uint8_t seq);
Frame echo_request(std::uint8_t seq, std::span<const std::uint8_t> data);
Frame load_begin_request(std::uint8_t seq);
Frame load_chunk_request(std::uint8_t seq, std::uint16_t index, std::uint32_t address,
                         std::span<const std::uint32_t> words);
Frame load_end_request(std::uint8_t seq, std::uint32_t image_crc);
Frame infer_request(std::uint8_t seq, std::span<const std::uint8_t> pixels);

// ---- responses ----
struct Response {
  bool ack = false;
  std::uint8_t command = 0;        // the command byte as the NPU received it
  std::uint8_t error = kErrNone;   // NAK only
  std::vector<std::uint8_t> data;  // ACK: the payload after the command byte
};

// nullopt when the frame is not a well-formed ACK or NAK.
std::optional<Response> parse_response(const Frame& frame);

struct NpuStatus {
  unsigned format_version = 0;
  unsigned lanes = 0;
  unsigned max_layers = 0;
  bool image_valid = false;
  bool load_open = false;
  unsigned layers = 0;
  unsigned max_chunk_bytes = 0;
  unsigned act_depth = 0;
  unsigned row_depth = 0;
  std::uint32_t wmem_depth = 0;
  unsigned input_size = 0;
  unsigned output_size = 0;
  unsigned frames_acked = 0;
  unsigned frames_naked = 0;
};

struct NpuResult {
  std::size_t predicted = 0;
  std::uint32_t cycles = 0;  // the NPU's count: first layer start -> last logit
  std::vector<std::int8_t> logits;
};

// Throw InputError when the ACK data has the wrong size.
NpuStatus parse_status(std::span<const std::uint8_t> data);
NpuResult parse_result(std::span<const std::uint8_t> data);  // the logits are the rest

// "E_CRC", "LOAD_CHUNK", ... for messages.
std::string error_name(std::uint8_t code);
std::string command_name(std::uint8_t command);

}  // namespace seatorch::npu
