// Frames, host side: the encoder, the decoder state machine (a mirror of
// rtl/npu_frame_rx.sv) and the payload layouts of docs/NPU.md's command table.
#include "seatorch/npu/frame.hpp"

#include "seatorch/core/crc32.hpp"
#include "seatorch/core/error.hpp"

#include <fmt/format.h>

namespace seatorch::npu {

// The CRC of every frame and of the image is core::crc32; the RTL folds the same one.
static_assert(kCrcPoly == core::kCrc32Polynomial, "rtl/npu_pkg.sv's CrcPoly must be core::crc32's polynomial");

namespace {

void put_u16(std::vector<std::uint8_t>& out, std::uint32_t v) {
  out.push_back(static_cast<std::uint8_t>(v));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
}

void put_u32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  put_u16(out, v);
  put_u16(out, v >> 16);
}

std::uint32_t get_u16(std::span<const std::uint8_t> d, std::size_t at) {
  return std::uint32_t{d[at]} | std::uint32_t{d[at + 1]} << 8;
}

std::uint32_t get_u32(std::span<const std::uint8_t> d, std::size_t at) {
  return get_u16(d, at) | get_u16(d, at + 2) << 16;
}

Frame request(std::uint8_t type, std::uint8_t seq, std::vector<std::uint8_t> payload = {}) {
  return Frame{type, seq, std::move(payload)};
}

}  // namespace

std::vector<std::uint8_t> encode_frame(const Frame& frame) {
  std::vector<std::uint8_t> out{kSync0, kSync1, frame.type, frame.seq};
  put_u16(out, static_cast<std::uint32_t>(frame.payload.size()));
  out.insert(out.end(), frame.payload.begin(), frame.payload.end());
  put_u32(out, core::crc32(std::span(out).subspan(2)));
  return out;
}

void FrameDecoder::reset() { state_ = State::kHunt; }

std::optional<DecodedFrame> FrameDecoder::push(std::uint8_t byte, bool framing_error) {
  if (in_frame()) framing_error_ = framing_error_ || framing_error;
  switch (state_) {
    case State::kHunt:
      if (!framing_error && byte == kSync0) state_ = State::kSync1;
      return std::nullopt;
    case State::kSync1:
      if (!framing_error && byte == kSync1) {
        state_ = State::kType;
        frame_ = Frame{};
        framing_error_ = false;
      } else if (framing_error || byte != kSync0) {
        state_ = State::kHunt;
      }
      return std::nullopt;
    case State::kType:
      frame_.type = byte;
      state_ = State::kSeq;
      return std::nullopt;
    case State::kSeq:
      frame_.seq = byte;
      state_ = State::kLen0;
      return std::nullopt;
    case State::kLen0:
      length_ = byte;
      state_ = State::kLen1;
      return std::nullopt;
    case State::kLen1:
      length_ |= std::size_t{byte} << 8;
      crc_bytes_ = 0;
      crc_received_ = 0;
      if (length_ > max_payload_) {
        state_ = State::kHunt;
        return DecodedFrame{FrameEvent::kLengthError, frame_};
      }
      frame_.payload.reserve(length_);
      state_ = length_ == 0 ? State::kCrc : State::kPayload;
      return std::nullopt;
    case State::kPayload:
      frame_.payload.push_back(byte);
      if (frame_.payload.size() == length_) state_ = State::kCrc;
      return std::nullopt;
    case State::kCrc: {
      crc_received_ |= std::uint32_t{byte} << (8 * crc_bytes_);
      if (++crc_bytes_ < 4) return std::nullopt;
      state_ = State::kHunt;
      if (framing_error_) return DecodedFrame{FrameEvent::kFramingError, frame_};
      std::vector<std::uint8_t> covered{frame_.type, frame_.seq};
      put_u16(covered, static_cast<std::uint32_t>(length_));
      core::Crc32 crc;
      crc.update(covered);
      crc.update(frame_.payload);
      if (crc.value() != crc_received_) return DecodedFrame{FrameEvent::kCrcError, frame_};
      return DecodedFrame{FrameEvent::kFrame, frame_};
    }
  }
  return std::nullopt;
}

Frame status_request(std::uint8_t seq) { return request(kCmdStatus, seq); }

Frame echo_request(std::uint8_t seq, std::span<const std::uint8_t> data) {
  return request(kCmdEcho, seq, {data.begin(), data.end()});
}

Frame load_begin_request(std::uint8_t seq) { return request(kCmdLoadBegin, seq); }

Frame load_chunk_request(std::uint8_t seq, std::uint16_t index, std::uint32_t address,
                         std::span<const std::uint32_t> words) {
  std::vector<std::uint8_t> payload;
  put_u16(payload, index);
  put_u16(payload, 0);
  put_u32(payload, address);
  for (const std::uint32_t w : words) put_u32(payload, w);
  return request(kCmdLoadChunk, seq, std::move(payload));
}

Frame load_end_request(std::uint8_t seq, std::uint32_t image_crc) {
  std::vector<std::uint8_t> payload;
  put_u32(payload, image_crc);
  return request(kCmdLoadEnd, seq, std::move(payload));
}

Frame infer_request(std::uint8_t seq, std::span<const std::uint8_t> pixels) {
  return request(kCmdInfer, seq, {pixels.begin(), pixels.end()});
}

std::optional<Response> parse_response(const Frame& frame) {
  if (frame.payload.empty()) return std::nullopt;
  Response r;
  r.command = frame.payload[0];
  if (frame.type == kRspAck) {
    r.ack = true;
    r.data.assign(frame.payload.begin() + 1, frame.payload.end());
    return r;
  }
  if (frame.type == kRspNak && frame.payload.size() == 2) {
    r.error = frame.payload[1];
    return r;
  }
  return std::nullopt;
}

NpuStatus parse_status(std::span<const std::uint8_t> d) {
  if (d.size() != kStatusBytes) {
    throw core::input_error("NPU STATUS: {} bytes, expected {}; the NPU and this seatorch disagree on the protocol",
                            d.size(), kStatusBytes);
  }
  NpuStatus s;
  s.format_version = d[0];
  s.lanes = d[1];
  s.max_layers = d[2];
  s.image_valid = (d[3] & 1U) != 0;
  s.load_open = (d[3] & 2U) != 0;
  s.layers = d[4];
  s.max_chunk_bytes = get_u16(d, 6);
  s.act_depth = get_u16(d, 8);
  s.row_depth = get_u16(d, 10);
  s.wmem_depth = get_u32(d, 12);
  s.input_size = get_u16(d, 16);
  s.output_size = get_u16(d, 18);
  s.frames_acked = get_u16(d, 20);
  s.frames_naked = get_u16(d, 22);
  return s;
}

NpuResult parse_result(std::span<const std::uint8_t> d) {
  if (d.size() <= kResultBytes) {
    throw core::input_error("NPU INFER result: {} bytes, expected class, cycles and at least one logit ({} bytes)",
                            d.size(), kResultBytes + 1);
  }
  NpuResult r;
  r.predicted = get_u16(d, 0);
  r.cycles = get_u32(d, 2);
  for (std::size_t i = kResultBytes; i < d.size(); ++i) r.logits.push_back(static_cast<std::int8_t>(d[i]));
  return r;
}

std::string error_name(std::uint8_t code) {
  static const char* const kNames[] = {"none",      "E_CRC",      "E_FRAMING",   "E_LENGTH",
                                       "E_TIMEOUT", "E_COMMAND",  "E_STATE",     "E_SEQUENCE",
                                       "E_ADDRESS", "E_NO_IMAGE", "E_IMAGE_CRC", "E_IMAGE_HEADER"};
  if (code < std::size(kNames)) return kNames[code];
  return fmt::format("error {}", code);
}

std::string command_name(std::uint8_t command) {
  switch (command) {
    case kCmdStatus:
      return "STATUS";
    case kCmdEcho:
      return "ECHO";
    case kCmdLoadBegin:
      return "LOAD_BEGIN";
    case kCmdLoadChunk:
      return "LOAD_CHUNK";
    case kCmdLoadEnd:
      return "LOAD_END";
    case kCmdInfer:
      return "INFER";
    default:
      return fmt::format("command 0x{:02x}", command);
  }
}

}  // namespace seatorch::npu
