// Host-side CRC-32, frames and the bit-level UART, against independent oracles: a bitwise
// CRC written from the polynomial, the published check value, hand-built frames, and the
// transmitter and receiver looped back to each other.
#include "seatorch/npu/frame.hpp"
#include "seatorch/npu/uart.hpp"

#include "seatorch/core/crc32.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/core/rng.hpp"
#include "seatorch/npu/constants.hpp"

#include <catch2/catch.hpp>

#include <string_view>
#include <vector>

namespace npu = seatorch::npu;

namespace {

// CRC-32 bit by bit, as rtl/npu_crc32.sv folds it: LSB first over npu_pkg's CrcPoly.
std::uint32_t crc32_bitwise(const std::vector<std::uint8_t>& bytes) {
  std::uint32_t c = 0xFFFFFFFFU;
  for (const std::uint8_t b : bytes) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c & 1U) ? (c >> 1) ^ npu::kCrcPoly : c >> 1;
  }
  return ~c;
}

std::vector<std::uint8_t> random_bytes(seatorch::core::Rng& rng, std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng.below(256));
  return v;
}

// Decodes every byte of `bytes`, returning the events.
std::vector<npu::DecodedFrame> decode_all(npu::FrameDecoder& decoder, const std::vector<std::uint8_t>& bytes,
                                          std::size_t bad_stop_at = ~std::size_t{0}) {
  std::vector<npu::DecodedFrame> events;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (auto e = decoder.push(bytes[i], i == bad_stop_at)) events.push_back(*e);
  }
  return events;
}

}  // namespace

TEST_CASE("the host's crc32 is the NPU's: the check value and a bitwise CRC over CrcPoly", "[npu]") {
  const std::string_view check = "123456789";
  const std::vector<std::uint8_t> digits(check.begin(), check.end());
  CHECK(seatorch::core::crc32(digits) == 0xCBF43926U);
  CHECK(seatorch::core::crc32({}) == 0U);
  seatorch::core::Rng rng(1);
  for (int trial = 0; trial < 200; ++trial) {
    const std::vector<std::uint8_t> bytes = random_bytes(rng, rng.below(300));
    seatorch::core::Crc32 pieces;
    const std::size_t cut = bytes.empty() ? 0 : rng.below(bytes.size());
    pieces.update(std::span(bytes).first(cut));
    pieces.update(std::span(bytes).subspan(cut));
    INFO("trial " << trial << " size " << bytes.size());
    REQUIRE(seatorch::core::crc32(bytes) == crc32_bitwise(bytes));
    REQUIRE(pieces.value() == crc32_bitwise(bytes));
  }
}

TEST_CASE("npu frames encode as sync type seq length payload crc", "[npu]") {
  const std::vector<std::uint8_t> bytes =
      npu::encode_frame(npu::echo_request(7, std::vector<std::uint8_t>{0xAA, 0xBB}));
  const std::vector<std::uint8_t> covered{0x02, 0x07, 0x02, 0x00, 0xAA, 0xBB};
  const std::uint32_t crc = crc32_bitwise(covered);
  const std::vector<std::uint8_t> expected{0xA5,
                                           0x5A,
                                           0x02,
                                           0x07,
                                           0x02,
                                           0x00,
                                           0xAA,
                                           0xBB,
                                           static_cast<std::uint8_t>(crc),
                                           static_cast<std::uint8_t>(crc >> 8),
                                           static_cast<std::uint8_t>(crc >> 16),
                                           static_cast<std::uint8_t>(crc >> 24)};
  CHECK(bytes == expected);

  const std::vector<std::uint32_t> words{0x04030201U, 0x08070605U};
  const npu::Frame chunk = npu::load_chunk_request(1, 0x1234, 0x400010, words);
  const std::vector<std::uint8_t> chunk_payload{0x34, 0x12, 0, 0, 0x10, 0x00, 0x40, 0x00, 1, 2, 3, 4, 5, 6, 7, 8};
  CHECK(chunk.payload == chunk_payload);
}

TEST_CASE("npu frame decoder finds frames and reports CRC framing and length errors", "[npu]") {
  seatorch::core::Rng rng(2);
  npu::FrameDecoder decoder(npu::kMaxPayload);
  for (int trial = 0; trial < 100; ++trial) {
    const npu::Frame frame{static_cast<std::uint8_t>(rng.below(256)), static_cast<std::uint8_t>(rng.below(256)),
                           random_bytes(rng, rng.below(40))};
    std::vector<std::uint8_t> stream = random_bytes(rng, rng.below(10));  // line noise first
    stream.push_back(0x5A);                                               // no sync before it: ignored
    const std::vector<std::uint8_t> bytes = npu::encode_frame(frame);
    stream.insert(stream.end(), bytes.begin(), bytes.end());
    const std::vector<npu::DecodedFrame> events = decode_all(decoder, stream);
    INFO("trial " << trial);
    // noise may open a spurious frame; the real one is always decoded last
    REQUIRE(!events.empty());
    CHECK(events.back().event == npu::FrameEvent::kFrame);
    CHECK(events.back().frame.type == frame.type);
    CHECK(events.back().frame.seq == frame.seq);
    CHECK(events.back().frame.payload == frame.payload);
    decoder.reset();
  }

  std::vector<std::uint8_t> bytes = npu::encode_frame(npu::status_request(3));
  bytes[3] ^= 0x10;  // a flipped bit in seq
  auto events = decode_all(decoder, bytes);
  REQUIRE(events.size() == 1);
  CHECK(events[0].event == npu::FrameEvent::kCrcError);

  bytes = npu::encode_frame(npu::status_request(3));
  events = decode_all(decoder, bytes, 4);  // a low stop bit in the length
  REQUIRE(events.size() == 1);
  CHECK(events[0].event == npu::FrameEvent::kFramingError);

  bytes = npu::encode_frame(npu::echo_request(3, std::vector<std::uint8_t>(npu::kMaxPayload + 1, 0)));
  events = decode_all(decoder, bytes);
  REQUIRE(!events.empty());
  CHECK(events[0].event == npu::FrameEvent::kLengthError);
}

TEST_CASE("npu frame decoder recovers from cut frames and keeps to its length limit", "[npu]") {
  const npu::Frame echo = npu::echo_request(9, std::vector<std::uint8_t>{0xA5, 0x5A, 0xA5, 0x5A, 0x00});
  const std::vector<std::uint8_t> bytes = npu::encode_frame(echo);
  npu::FrameDecoder decoder(npu::kMaxPayload);

  // Sync bytes inside the payload do not restart the frame.
  auto events = decode_all(decoder, bytes);
  REQUIRE(events.size() == 1);
  CHECK(events[0].event == npu::FrameEvent::kFrame);
  CHECK(npu::encode_frame(events[0].frame) == bytes);

  // A frame cut short, then the timeout: nothing reported, and the next frame is whole.
  CHECK(decode_all(decoder, std::vector<std::uint8_t>(bytes.begin(), bytes.begin() + 8)).empty());
  CHECK(decoder.in_frame());
  decoder.reset();
  CHECK_FALSE(decoder.in_frame());
  events = decode_all(decoder, bytes);
  REQUIRE(events.size() == 1);
  CHECK(npu::encode_frame(events[0].frame) == bytes);

  // A low stop bit on the first sync byte: the frame is never opened (the sender's timeout
  // resends it), so no event at all. (A payload holding A5 5A would open one there.)
  CHECK(decode_all(decoder, npu::encode_frame(npu::status_request(4)), 0).empty());
  CHECK_FALSE(decoder.in_frame());

  // An empty payload is a frame; a payload at the limit is one, one byte more is refused.
  npu::FrameDecoder small(8);
  const npu::Frame empty{npu::kRspAck, 1, {}};
  events = decode_all(small, npu::encode_frame(empty));
  REQUIRE(events.size() == 1);
  CHECK(events[0].event == npu::FrameEvent::kFrame);
  CHECK(events[0].frame.payload.empty());
  const npu::Frame at_limit{npu::kRspAck, 2, std::vector<std::uint8_t>(8, 0x11)};
  events = decode_all(small, npu::encode_frame(at_limit));
  REQUIRE(events.size() == 1);
  CHECK(events[0].frame.payload == at_limit.payload);
  events = decode_all(small, npu::encode_frame(npu::Frame{npu::kRspAck, 3, std::vector<std::uint8_t>(9, 0x11)}));
  REQUIRE(!events.empty());
  CHECK(events[0].event == npu::FrameEvent::kLengthError);
  CHECK(events[0].frame.payload.empty());
  CHECK_FALSE(small.in_frame());
}

TEST_CASE("npu response parsers check sizes", "[npu]") {
  CHECK_FALSE(npu::parse_response(npu::Frame{npu::kRspAck, 0, {}}).has_value());
  CHECK_FALSE(npu::parse_response(npu::Frame{0x33, 0, {1}}).has_value());
  const auto nak = npu::parse_response(npu::Frame{npu::kRspNak, 0, {npu::kCmdInfer, npu::kErrNoImage}});
  REQUIRE(nak.has_value());
  CHECK_FALSE(nak->ack);
  CHECK(nak->error == npu::kErrNoImage);
  CHECK(npu::error_name(npu::kErrNoImage) == "E_NO_IMAGE");
  CHECK_THROWS_AS(npu::parse_status(std::vector<std::uint8_t>(3)), seatorch::core::InputError);
  const std::vector<std::uint8_t> result{3, 0, 0x10, 0x27, 0, 0, 0x80, 0x7F};
  const npu::NpuResult r = npu::parse_result(result);
  CHECK(r.predicted == 3);
  CHECK(r.cycles == 10000);
  CHECK(r.logits == std::vector<std::int8_t>{-128, 127});
  CHECK_THROWS_AS(npu::parse_result(std::span(result).first(6)), seatorch::core::InputError);
}

TEST_CASE("npu bit-level UART loops back at several clocks per bit", "[npu]") {
  seatorch::core::Rng rng(3);
  for (const unsigned cpb : {4U, 5U, 7U, 16U, 33U, 100U}) {
    npu::UartLineTx tx(cpb);
    npu::UartLineRx rx(cpb);
    const std::vector<std::uint8_t> bytes = random_bytes(rng, 64);
    const std::size_t bad = 20;
    for (std::size_t i = 0; i < bytes.size(); ++i) tx.push(bytes[i], i != bad);
    std::vector<npu::UartByte> got;
    std::size_t cycles = 0;
    while ((!tx.idle() || rx.busy()) && cycles < 64 * 11 * cpb) {
      if (auto b = rx.tick(tx.tick())) got.push_back(*b);
      ++cycles;
    }
    INFO("clocks per bit " << cpb);
    REQUIRE(got.size() == bytes.size());
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      INFO("byte " << i);
      CHECK(got[i].value == bytes[i]);
      CHECK(got[i].framing_error == (i == bad));
    }
  }
  CHECK_THROWS_AS(npu::UartLineTx(3), seatorch::core::InputError);
}

TEST_CASE("npu bit-level UART reports a break as a framing error and recovers", "[npu]") {
  npu::UartLineTx tx(8);
  npu::UartLineRx rx(8);
  tx.push_break(8 * 30);
  tx.push(0x5C);
  std::vector<npu::UartByte> got;
  for (int c = 0; c < 8 * 50; ++c) {
    if (auto b = rx.tick(tx.tick())) got.push_back(*b);
  }
  REQUIRE(got.size() == 2);
  CHECK(got[0].value == 0);
  CHECK(got[0].framing_error);
  CHECK(got[1].value == 0x5C);
  CHECK_FALSE(got[1].framing_error);
}
