// libFuzzer target: the host's frame decoder (npu/frame.hpp) on an arbitrary byte stream
// with framing errors and timeouts, and the response parsers on every frame it decodes.
//
// Input: byte 0 chooses the decoder's payload limit (0x80 | n: n bytes, else kMaxPayload);
// the rest is the line, where 0xFE escapes: FE 00 is the byte FE, FE 01 b is byte b with a
// low stop bit (a framing error), FE 02 is a timeout (reset()), any other FE pair is skipped.
// Checks: every kFrame re-encodes with encode_frame() to exactly the last bytes received
// since the last reset, none of them with a framing error; a kLengthError follows a header
// whose length field exceeds the limit; no event carries a payload over the limit and the
// decoder is out of a frame after each; the response parsers accept exactly the well-formed
// payloads and throw InputError on the rest. The parsers also see the whole line as one
// frame's type and payload: frames with a good CRC are rare in mutated input.
#include "fuzz_support.hpp"

#include "seatorch/npu/constants.hpp"
#include "seatorch/npu/frame.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace {

using namespace seatorch;

constexpr std::uint8_t kEscape = 0xFE;

// Received bytes since the last reset, with their framing-error flags.
struct Line {
  std::vector<std::uint8_t> bytes;
  std::vector<bool> bad;

  [[nodiscard]] bool ends_with(const std::vector<std::uint8_t>& tail) const {
    return tail.size() <= bytes.size() && std::equal(tail.begin(), tail.end(), bytes.end() - tail.size());
  }
  [[nodiscard]] bool clean_tail(std::size_t n) const {
    return std::none_of(bad.end() - static_cast<std::ptrdiff_t>(n), bad.end(), [](bool b) { return b; });
  }
};

template <typename Parse>
bool accepts(Parse parse) {
  try {
    parse();
    return true;
  } catch (const core::InputError&) {
    return false;
  }
}

void check_responses(const npu::Frame& frame) {
  const std::optional<npu::Response> r = npu::parse_response(frame);
  const bool ack = frame.type == npu::kRspAck && !frame.payload.empty();
  const bool nak = frame.type == npu::kRspNak && frame.payload.size() == 2;
  fuzz::require(r.has_value() == (ack || nak), "parse_response accepts exactly ACKs and two-byte NAKs");
  if (!r) return;
  fuzz::require(r->ack == ack && r->command == frame.payload[0], "the response names its command");
  if (!r->ack) {
    fuzz::require(r->error == frame.payload[1], "a NAK carries its error code");
    return;
  }
  fuzz::require(std::equal(r->data.begin(), r->data.end(), frame.payload.begin() + 1, frame.payload.end()) &&
                    r->data.size() + 1 == frame.payload.size(),
                "an ACK's data is its payload after the command byte");
  const std::span<const std::uint8_t> data(r->data);
  fuzz::require(accepts([&] { npu::parse_status(data); }) == (data.size() == npu::kStatusBytes),
                "parse_status accepts exactly the status size");
  fuzz::require(accepts([&] {
                  const npu::NpuResult result = npu::parse_result(data);
                  fuzz::require(result.logits.size() == data.size() - npu::kResultBytes,
                                "one logit per byte after the header");
                }) == (data.size() > npu::kResultBytes),
                "parse_result accepts exactly a header and at least one logit");
}

void check_event(const npu::DecodedFrame& event, const Line& line, std::size_t max_payload) {
  fuzz::require(event.frame.payload.size() <= max_payload, "no payload exceeds the limit");
  if (event.event == npu::FrameEvent::kFrame) {
    const std::vector<std::uint8_t> encoded = npu::encode_frame(event.frame);
    fuzz::require(line.ends_with(encoded), "a decoded frame re-encodes to the bytes that carried it");
    fuzz::require(line.clean_tail(encoded.size()), "a decoded frame had no framing error");
    check_responses(event.frame);
  } else if (event.event == npu::FrameEvent::kLengthError) {
    const std::vector<std::uint8_t> header{npu::kSync0, npu::kSync1, event.frame.type, event.frame.seq};
    fuzz::require(line.bytes.size() >= 6, "a length error follows a header");
    const std::size_t n = line.bytes.size();
    const std::size_t length = line.bytes[n - 2] | std::size_t{line.bytes[n - 1]} << 8;
    fuzz::require(std::equal(header.begin(), header.end(), line.bytes.end() - 6) && length > max_payload,
                  "a length error follows a header whose length exceeds the limit");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t max_payload = (data[0] & 0x80) != 0 ? std::size_t{data[0] & 0x7FU} : npu::kMaxPayload;
  npu::FrameDecoder decoder(max_payload);
  Line line;
  std::vector<std::uint8_t> payload;  // every byte received, for the parsers alone
  for (std::size_t i = 1; i < size; ++i) {
    std::uint8_t byte = data[i];
    bool framing_error = false;
    if (byte == kEscape) {
      if (++i >= size) break;
      if (data[i] == 0x02) {
        decoder.reset();
        fuzz::require(!decoder.in_frame(), "a reset leaves the frame");
        line = Line{};
        continue;
      }
      if (data[i] == 0x01 && i + 1 < size) {
        byte = data[++i];
        framing_error = true;
      } else if (data[i] != 0x00) {
        continue;
      }
    }
    line.bytes.push_back(byte);
    payload.push_back(byte);
    line.bad.push_back(framing_error);
    if (const std::optional<npu::DecodedFrame> event = decoder.push(byte, framing_error)) {
      fuzz::require(!decoder.in_frame(), "the decoder hunts for the next frame after an event");
      check_event(*event, line, max_payload);
    }
  }
  if (!payload.empty()) {
    const std::uint8_t type = payload.front();
    payload.erase(payload.begin());
    check_responses(npu::Frame{type, 0, std::move(payload)});
  }
  return 0;
}
