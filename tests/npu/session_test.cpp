// The Mini NPU's RTL, Verilated and driven only through its UART pins by NpuSession, against
// the C++ integer reference (int8_forward_ref): the line, the protocol's error handling, the
// loader's promise that a rejected chunk changes nothing, and inference bit for bit and cycle
// for cycle. The tests of what differs between the NPU targets (sizes, status, the
// requantizer, the timing) run once per target; those of the shared UART and protocol RTL run
// on the default one.
#include "seatorch/npu/session.hpp"

#include "../scratch_dir.hpp"
#include "npu_test_models.hpp"
#include "seatorch/core/argmax.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/npu/image_builder.hpp"
#include "seatorch/npu/rtl_pins.hpp"
#include "seatorch/npu/sim_link.hpp"
#include "seatorch/npu/timing.hpp"
#include "seatorch/quant/int8_model.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <limits>

namespace npu = seatorch::npu;
namespace q = seatorch::quant;

namespace {

// Fewer images and narrower hidden layers (a shorter load) where the sanitizers make the
// simulation several times slower.
#ifdef SEATORCH_SANITIZED
constexpr std::size_t kImages = 12;
const std::vector<std::size_t> kTwoLayers{784, 16, 10};
const std::vector<std::size_t> kThreeLayers{784, 32, 16, 10};
#else
constexpr std::size_t kImages = 50;
const std::vector<std::size_t> kTwoLayers{784, 64, 10};
const std::vector<std::size_t> kThreeLayers{784, 48, 32, 10};
#endif

constexpr std::uint64_t kWait = 200000;  // cycles to wait for a response in the raw tests

npu::NpuSimOptions on(const npu::NpuTarget& target) {
  npu::NpuSimOptions options;
  options.target = target;
  return options;
}

// Sends one frame as raw bytes and returns the NPU's response, which must come.
npu::Response send_and_receive(npu::NpuSession& s, const std::vector<std::uint8_t>& bytes,
                               std::optional<std::size_t> bad_stop_at = std::nullopt) {
  s.send_raw(bytes, bad_stop_at);
  const std::optional<npu::DecodedFrame> event = s.receive(kWait + 20 * bytes.size() * s.sim().clks_per_bit());
  REQUIRE(event.has_value());
  REQUIRE(event->event == npu::FrameEvent::kFrame);
  const std::optional<npu::Response> response = npu::parse_response(event->frame);
  REQUIRE(response.has_value());
  return *response;
}

void require_nak(const npu::Response& r, std::uint8_t error) {
  INFO("expected NAK " << npu::error_name(error) << ", got " << (r.ack ? "ACK" : "NAK " + npu::error_name(r.error)));
  REQUIRE_FALSE(r.ack);
  REQUIRE(r.error == error);
}

// Runs `images` random images through the NPU and the reference; every class and logit must
// agree and the NPU must take exactly the documented cycles.
void require_agreement(npu::NpuSession& session, const npu::NpuImage& image, const q::Int8Model& model,
                       seatorch::core::Rng& rng, std::size_t images) {
  for (std::size_t n = 0; n < images; ++n) {
    const std::vector<std::uint8_t> pixels = npu::test::random_image(rng, model.inputs());
    const std::vector<std::int8_t> expected = q::int8_forward_ref(model, pixels);
    const npu::NpuInference got = session.infer(pixels);
    INFO("image " << n << " of model " << image.architecture());
    REQUIRE(got.logits.size() == expected.size());
    for (std::size_t k = 0; k < expected.size(); ++k) {
      INFO("logit " << k << ": NPU " << int{got.logits[k]} << ", reference " << int{expected[k]});
      REQUIRE(got.logits[k] == expected[k]);
    }
    REQUIRE(got.predicted == seatorch::core::argmax(expected));
    REQUIRE(got.npu_cycles == npu::npu_inference_cycles(image));
  }
}

// The load of docs/NPU.md as individual frames of chunk_words words, so that tests can
// interleave bad ones.
std::vector<npu::Frame> load_frames(npu::NpuSession& s, const npu::NpuImage& image, std::size_t chunk_words = 256) {
  std::vector<npu::Frame> frames{npu::load_begin_request(s.next_seq())};
  std::uint16_t index = 0;
  for (const npu::NpuSection& section : image.sections) {
    for (std::size_t at = 0; at < section.words.size(); at += chunk_words) {
      const std::size_t n = std::min(chunk_words, section.words.size() - at);
      frames.push_back(npu::load_chunk_request(s.next_seq(), index++, section.address + static_cast<std::uint32_t>(at),
                                               std::span(section.words).subspan(at, n)));
    }
  }
  frames.push_back(npu::load_end_request(s.next_seq(), image.crc));
  return frames;
}

}  // namespace

TEST_CASE("npu rtl echoes frames at several clocks per bit", "[npu]") {
  seatorch::core::Rng rng(10);
  for (const unsigned cpb : {4U, 5U, 7U, 16U, 33U}) {
    npu::NpuSimOptions options;
    options.clks_per_bit = cpb;
    options.max_attempts = 1;  // a clean line needs no resend
    npu::NpuSession session(options);
    for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{37}, std::size_t{300}}) {
      std::vector<std::uint8_t> data(size);
      for (auto& b : data) b = static_cast<std::uint8_t>(rng.below(256));
      INFO("clocks per bit " << cpb << ", " << size << " bytes");
      CHECK(session.echo(data) == data);
    }
    CHECK(session.stats().resends == 0);
  }
  npu::NpuSession session;
  const std::vector<std::uint8_t> full(npu::kMaxPayload, 0xA5);  // sync bytes inside the payload
  CHECK(session.echo(full) == full);
}

TEST_CASE("npu session writes an FST trace of every cycle", "[npu]") {
  const npu::NpuTarget& target = NPU_TEST_EACH_TARGET();
  INFO("target " << target.name);
  const seatorch::test::ScratchDir dir;
  const std::filesystem::path path = dir / "trace.fst";
  {
    npu::NpuSimOptions options = on(target);
    options.trace_path = path;
    npu::NpuSession session(options);
    CHECK(session.status().lanes == target.limits.lanes);
  }
  REQUIRE(std::filesystem::exists(path));
  CHECK(std::filesystem::file_size(path) > 1000);
  npu::NpuSimOptions bad;
  bad.trace_path = "/nonexistent/dir/x.fst";
  CHECK_THROWS_AS(npu::NpuSession(bad), seatorch::core::InputError);
}

TEST_CASE("npu rtl reports its status and refuses inference before a valid image", "[npu]") {
  const npu::NpuTarget& target = NPU_TEST_EACH_TARGET();
  INFO("target " << target.name);
  npu::NpuSession session(on(target));
  const npu::NpuStatus st = session.status();
  CHECK(st.format_version == npu::kFormatVersion);
  CHECK(st.lanes == target.limits.lanes);
  CHECK(st.max_layers == target.limits.max_layers);
  CHECK_FALSE(st.image_valid);
  CHECK_FALSE(st.load_open);
  CHECK(st.max_chunk_bytes == npu::kMaxChunkBytes);
  CHECK(st.act_depth == target.limits.act_depth);
  CHECK(st.row_depth == target.limits.row_depth);
  CHECK(st.wmem_depth == target.limits.wmem_depth);

  const std::vector<std::uint8_t> pixels(784, 0);
  require_nak(session.request(npu::infer_request(session.next_seq(), pixels)), npu::kErrNoImage);
  require_nak(session.request(npu::load_chunk_request(session.next_seq(), 0, 0, std::vector<std::uint32_t>{1})),
              npu::kErrState);
  require_nak(session.request(npu::load_end_request(session.next_seq(), 0)), npu::kErrState);
  CHECK_THROWS_WITH(session.infer(pixels), Catch::Contains("E_NO_IMAGE"));
  CHECK(session.status().frames_naked == 4);
}

TEST_CASE("npu rtl NAKs framing CRC length timeout and command errors", "[npu]") {
  npu::NpuSession session;
  const std::vector<std::uint8_t> frame =
      npu::encode_frame(npu::echo_request(0x42, std::vector<std::uint8_t>{1, 2, 3}));

  npu::Response r = send_and_receive(session, frame, 7);  // a low stop bit in the payload
  require_nak(r, npu::kErrFraming);

  std::vector<std::uint8_t> bad = frame;
  bad[6] ^= 0x01;  // one flipped payload bit
  r = send_and_receive(session, bad);
  require_nak(r, npu::kErrCrc);
  CHECK(r.command == npu::kCmdEcho);

  bad = frame;
  bad[bad.size() - 1] ^= 0x80;  // one flipped CRC bit
  require_nak(send_and_receive(session, bad), npu::kErrCrc);

  const std::vector<std::uint8_t> too_long{npu::kSync0, npu::kSync1, npu::kCmdEcho, 9, 0x09, 0x04};  // 1033 bytes
  require_nak(send_and_receive(session, too_long), npu::kErrLength);

  std::vector<std::uint8_t> dropped = frame;
  dropped.erase(dropped.begin() + 5);  // a lost length byte: the frame never completes
  require_nak(send_and_receive(session, dropped), npu::kErrTimeout);

  require_nak(send_and_receive(session, npu::encode_frame(npu::Frame{0x7F, 1, {}})), npu::kErrCommand);
  require_nak(send_and_receive(session, npu::encode_frame(npu::Frame{npu::kCmdStatus, 2, {1}})), npu::kErrLength);

  // a break in the middle of a frame
  session.send_raw(std::span(frame).first(5));
  session.send_break(30);
  session.send_raw(std::span(frame).subspan(5));
  const std::optional<npu::DecodedFrame> e = session.receive(kWait);
  REQUIRE(e.has_value());
  const std::optional<npu::Response> broken = npu::parse_response(e->frame);
  REQUIRE(broken.has_value());
  require_nak(*broken, npu::kErrFraming);

  // the receiver recovered from all of it
  const std::vector<std::uint8_t> data{9, 8, 7};
  CHECK(session.echo(data) == data);
  CHECK(session.status().frames_naked == 8);
}

TEST_CASE("npu rtl NAKs a corrupted chunk and keeps the stored image unchanged", "[npu]") {
  seatorch::core::Rng rng(11);
  const q::Int8Model model = npu::test::random_model(rng, {64, 32, 10});
  const npu::NpuImage image = npu::build_npu_image(model);
  npu::NpuSession session;
  const std::vector<npu::Frame> frames = load_frames(session, image);
  REQUIRE(frames.size() > 6);

  for (std::size_t f = 0; f < frames.size(); ++f) {
    if (f == 3) {
      // chunk 2 with different data but its original CRC: NAKed, not written
      std::vector<std::uint8_t> bytes = npu::encode_frame(frames[f]);
      for (std::size_t b = 14; b < bytes.size() - 4; ++b) bytes[b] = static_cast<std::uint8_t>(~bytes[b]);
      require_nak(send_and_receive(session, bytes), npu::kErrCrc);
      // a well-formed chunk that skips ahead, and one outside every region
      npu::Frame ahead = frames[f + 1];
      ahead.seq = session.next_seq();
      require_nak(session.request(ahead), npu::kErrSequence);
      npu::Frame outside = frames[f];
      outside.seq = session.next_seq();
      outside.payload[7] = 0x05;  // address 0x05xxxxxx
      require_nak(session.request(outside), npu::kErrAddress);
      outside.payload[7] = 0x00;
      outside.payload[6] = 0x4F;
      outside.payload[5] = 0xFF;  // 0x4FFFxx: beyond the weight memory
      require_nak(session.request(outside), npu::kErrAddress);
    }
    const npu::Response r = session.request(frames[f]);
    INFO("frame " << f << ": " << npu::command_name(frames[f].type) << " -> " << npu::error_name(r.error));
    REQUIRE(r.ack);
    if (f == 4) {
      // chunk 3 again, as after a lost ACK: ACKed without being applied twice
      npu::Frame again = frames[f];
      again.seq = session.next_seq();
      CHECK(session.request(again).ack);
    }
  }
  CHECK(session.status().image_valid);
  // the corrupted chunk would have broken the image CRC and the weights: all still agree
  require_agreement(session, image, model, rng, 5);

  // after a complete load: a bad chunk and a stray chunk change nothing
  std::vector<std::uint8_t> bytes = npu::encode_frame(frames[2]);
  bytes[20] ^= 0x04;
  require_nak(send_and_receive(session, bytes), npu::kErrCrc);
  npu::Frame stray = frames[2];
  stray.seq = session.next_seq();
  require_nak(session.request(stray), npu::kErrState);
  CHECK(session.status().image_valid);
  require_agreement(session, image, model, rng, 5);
}

TEST_CASE("npu rtl validates the image CRC and header at LOAD_END", "[npu]") {
  const npu::NpuTarget& target = NPU_TEST_EACH_TARGET();
  INFO("target " << target.name);
  seatorch::core::Rng rng(12);
  const q::Int8Model model = npu::test::random_model(rng, {12, 6, 4});
  const npu::NpuImage image = npu::build_npu_image(model, target);
  npu::NpuSession session(on(target));
  std::vector<npu::Frame> frames = load_frames(session, image);
  for (std::size_t f = 0; f + 1 < frames.size(); ++f) REQUIRE(session.request(frames[f]).ack);
  require_nak(session.request(npu::load_end_request(session.next_seq(), image.crc ^ 0x100U)), npu::kErrImageCrc);
  CHECK_FALSE(session.status().image_valid);

  // an image laid out for the other target (other lanes) has a good CRC but a header this NPU
  // cannot run
  const npu::NpuTarget& other_target = npu::npu_target(target.name == "default" ? "icebreaker" : "default");
  REQUIRE(other_target.limits.lanes != target.limits.lanes);
  const npu::NpuImage other = npu::build_npu_image(model, other_target);
  CHECK_THROWS_WITH(session.load(other), Catch::Contains("LOAD_END") && Catch::Contains("E_IMAGE_HEADER"));
  require_nak(session.request(npu::infer_request(session.next_seq(), std::vector<std::uint8_t>(12, 0))),
              npu::kErrNoImage);

  session.load(image);
  // LOAD_END resent after a lost ACK is ACKed again; an INFER of the wrong size is refused
  CHECK(session.request(npu::load_end_request(session.next_seq(), image.crc)).ack);
  require_nak(send_and_receive(session, npu::encode_frame(npu::infer_request(3, std::vector<std::uint8_t>(11, 0)))),
              npu::kErrLength);
  require_agreement(session, image, model, rng, 3);
}

TEST_CASE("npu session resends after a corrupted request and lost bytes in both directions", "[npu]") {
  seatorch::core::Rng rng(17);
  const q::Int8Model model = npu::test::random_model(rng, {64, 20, 10});
  const npu::NpuImage image = npu::build_npu_image(model);
  // Byte numbers pick the victims: byte 29 to the NPU (in the first chunk) gets data bit 3
  // inverted, byte 1999 (in a later chunk) is dropped, and bytes 39 to 59 from the NPU are
  // dropped, which garbles one ACK and swallows the next whole (a timeout).
  npu::NpuSimOptions options;
  options.to_npu = [](std::uint64_t index) {
    npu::WireFault fault;
    fault.flips = index == 29 ? std::uint16_t{1U << 4} : std::uint16_t{0};
    fault.drop = index == 1999;
    return fault;
  };
  options.from_npu = [](std::uint64_t index) {
    npu::WireFault fault;
    fault.drop = index >= 39 && index <= 59;
    return fault;
  };
  npu::NpuSession session(options);
  session.load(image);
  require_agreement(session, image, model, rng, 4);
  const npu::NpuStats& st = session.stats();
  INFO("naks " << st.naks << ", timeouts " << st.timeouts << ", bad responses " << st.bad_responses << ", resends "
               << st.resends);
  CHECK(st.naks == 2);  // E_CRC for the flipped bit, E_TIMEOUT for the dropped byte
  CHECK(st.timeouts >= 1);
  CHECK(st.resends == st.naks + st.timeouts + st.bad_responses);
  CHECK(st.faults_to_npu.bit_flips == 1);
  CHECK(st.faults_to_npu.drops == 1);
  CHECK(st.faults_from_npu.drops == 21);
  CHECK(st.undetected == 0);
}

TEST_CASE("npu session survives random bit errors and lost bytes on every frame type", "[npu]") {
  // Rates at which about one exchange in three is hit, with short chunks so that loads still
  // get through. Rounds of load, STATUS, ECHO and INFER go on until faults have hit the
  // request and the response of every command; each round checks what the NPU answers.
  seatorch::core::Rng rng(23);
  const q::Int8Model model = npu::test::random_model(rng, {24, 12, 10});
  const npu::NpuImage image = npu::build_npu_image(model);
  const npu::LineFaultRates rates{2e-4, 2e-3};
  npu::NpuSimOptions options;
  options.max_attempts = 200;
  options.to_npu = npu::random_line_faults(rates, 4);
  options.from_npu = npu::random_line_faults(rates, 5);
  npu::NpuSession session(options);

  const std::vector<std::uint8_t> kCommands{npu::kCmdStatus,    npu::kCmdEcho,    npu::kCmdLoadBegin,
                                            npu::kCmdLoadChunk, npu::kCmdLoadEnd, npu::kCmdInfer};
  const auto every_command_hit = [&] {
    const npu::NpuStats& st = session.stats();
    return std::all_of(kCommands.begin(), kCommands.end(), [&](std::uint8_t c) {
      const auto it = st.faults_by_command.find(c);
      return it != st.faults_by_command.end() && it->second.requests_hit > 0 && it->second.responses_hit > 0;
    });
  };
  std::size_t rounds = 0;
  for (; rounds < 40 && !every_command_hit(); ++rounds) {
    INFO("round " << rounds);
    const std::vector<npu::Frame> frames = load_frames(session, image, 4);
    for (std::size_t f = 0; f < frames.size(); ++f) {
      const npu::Response r = session.request(frames[f]);
      INFO("load frame " << f << ": " << (r.ack ? "ACK" : "NAK " + npu::error_name(r.error)));
      REQUIRE(r.ack);
      // an image in the middle of its load is never run
      if (f == 1)
        require_nak(session.request(npu::infer_request(session.next_seq(), npu::test::random_image(rng, 24))),
                    npu::kErrNoImage);
    }
    const npu::NpuStatus status = session.status();
    REQUIRE(status.image_valid);
    REQUIRE(status.layers == 2);
    const std::vector<std::uint8_t> data = npu::test::random_image(rng, 16);
    REQUIRE(session.echo(data) == data);
    require_agreement(session, image, model, rng, 2);
  }
  const npu::NpuStats& st = session.stats();
  INFO("after " << rounds << " rounds: " << st.faults_to_npu.faults() << " faults to the NPU, "
                << st.faults_from_npu.faults() << " from it, " << st.faulted_sends << " sends hit, " << st.failed_sends
                << " failed");
  for (std::uint8_t c : kCommands) {
    const npu::NpuStats::CommandFaults hits =
        st.faults_by_command.count(c) ? st.faults_by_command.at(c) : npu::NpuStats::CommandFaults{};
    INFO(npu::command_name(c) << ": " << hits.requests_hit << " requests and " << hits.responses_hit
                              << " responses hit");
    CHECK(hits.requests_hit > 0);
    CHECK(hits.responses_hit > 0);
  }
  CHECK(st.faults_to_npu.bit_flips > 0);
  CHECK(st.faults_to_npu.drops > 0);
  CHECK(st.faults_from_npu.bit_flips > 0);
  CHECK(st.faults_from_npu.drops > 0);
  CHECK(st.naks > 0);
  CHECK(st.timeouts > 0);
  CHECK(st.bad_responses > 0);
  // every send that a fault hit failed and was resent; none was answered
  CHECK(st.undetected == 0);
  CHECK(st.failed_sends >= st.faulted_sends);
  CHECK(st.resends == st.failed_sends);
}

TEST_CASE("npu rtl MAC array and requantization match the reference at the extremes", "[npu]") {
  // On each target's requantizer - the pipelined one with its 32 x 32 multiplier, the serial
  // one with its shift-and-add steps - rows cycle through every shift from 0 to 31,
  // multipliers at both ends of int32 (negative ones too: the serial multiplier weighs the
  // sign bit -2^31) and of the quantizer's [2^30, 2^31), biases that take the accumulator to
  // both ends of int32, and the rows where srdhm saturates; the trials put the zero-points at
  // both ends, with and without ReLU.
  const npu::NpuTarget& target = NPU_TEST_EACH_TARGET();
  INFO("target " << target.name);
  seatorch::core::Rng rng(13);
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
  constexpr std::int32_t kMaxProducts = 40 * 255 * 255;  // |sum_i (x_i - z_x)(w_i - z_w)| over 40 inputs
  npu::NpuSession session(on(target));
  for (int trial = 0; trial < 4; ++trial) {
    // 1 layer of 40 inputs, 37 outputs: the last group is partial on both targets
    q::Int8Layer layer;
    layer.in = 40;
    layer.out = 37;
    layer.input_zero_point = trial % 2 == 0 ? -128 : 127;
    layer.weight_zero_point = trial == 0 ? 0 : trial == 1 ? -128 : trial == 2 ? 127 : 5;
    layer.output_zero_point = trial == 0 ? -128 : trial == 1 ? 127 : trial == 2 ? 0 : -3;
    layer.relu = trial % 2 == 1;
    for (std::size_t j = 0; j < layer.out; ++j) {
      for (std::size_t i = 0; i < layer.in; ++i) {
        const std::uint64_t kind = rng.below(4);
        const std::int32_t w = kind == 0 ? 127 : kind == 1 ? -128 : npu::test::uniform_int(rng, -128, 127);
        layer.weight.push_back(static_cast<std::int8_t>(w));
      }
      const std::int32_t multipliers[] = {
          1 << 30, kMax, 1518500250, kMin, kMin + 1, -1, 1, -(1 << 30) - 7, npu::test::uniform_int(rng, 1 << 30, kMax)};
      layer.multiplier.push_back(multipliers[j % 9]);
      layer.shift.push_back(static_cast<std::int32_t>(j % 32));
      // the builder refuses a bias that could overflow the int32 sum, so the largest are the
      // ends of int32 minus the largest sum of products
      const std::int32_t biases[] = {0,
                                     1 << 30,
                                     -(1 << 30),
                                     kMax - kMaxProducts,
                                     kMin + kMaxProducts,
                                     npu::test::uniform_int(rng, -100000, 100000)};
      layer.bias.push_back(biases[j % 6]);
    }
    // rows where srdhm saturates: acc = bias = INT32_MIN (all products 0), M = INT32_MIN;
    // the result INT32_MAX shifted by 0 and by 31
    for (const std::size_t row : {std::size_t{5}, std::size_t{6}}) {
      for (std::size_t i = 0; i < layer.in; ++i) {
        layer.weight[row * layer.in + i] = static_cast<std::int8_t>(layer.weight_zero_point);
      }
      layer.bias[row] = kMin;
      layer.multiplier[row] = kMin;
      layer.shift[row] = row == 5 ? 0 : 31;
    }
    const q::Int8Model model{{layer}};
    const npu::NpuImage image = npu::build_npu_image(model, target);
    session.load(image);
    INFO("trial " << trial);
    for (const std::uint8_t fill : {std::uint8_t{0}, std::uint8_t{255}}) {
      const std::vector<std::uint8_t> pixels(layer.in, fill);
      const npu::NpuInference got = session.infer(pixels);
      CHECK(got.logits == q::int8_forward_ref(model, pixels));
    }
    require_agreement(session, image, model, rng, 6);
  }
}

TEST_CASE("npu rtl runs narrow, wide and deep models exactly as the reference, cycle for cycle", "[npu]") {
  // The timing formula's cases on each target: in below the group pace (the array waits for
  // the feeder or the requantizer), in below, at and above the serial requantizer's 8 * 68 = 544,
  // partial last groups, a single output, 5 layers.
  const npu::NpuTarget& target = NPU_TEST_EACH_TARGET();
  INFO("target " << target.name);
  seatorch::core::Rng rng(14);
  npu::NpuSession session(on(target));
  for (const auto& sizes : {std::vector<std::size_t>{8, 40, 5, 3}, std::vector<std::size_t>{3, 17, 1},
                            std::vector<std::size_t>{20, 16, 16, 32, 7, 10}, std::vector<std::size_t>{500, 16, 9},
                            std::vector<std::size_t>{544, 17, 1}, std::vector<std::size_t>{600, 24, 8}}) {
    const q::Int8Model model = npu::test::random_model(rng, sizes);
    const npu::NpuImage image = npu::build_npu_image(model, target);
    session.load(image);
    require_agreement(session, image, model, rng, 4);
  }
}

namespace {

// A random model of `sizes` through a fresh NPU of `target`: every class and logit of
// kImages images, no resend on the clean line, and the MAC utilization the timing formula
// promises for the pipelined requantizer. (The serial one makes these narrow later layers
// requantizer-bound, 68 cycles per output; require_agreement has checked its cycles.)
void check_end_to_end(const npu::NpuTarget& target, const std::vector<std::size_t>& sizes, std::uint64_t seed) {
  INFO("target " << target.name);
  seatorch::core::Rng rng(seed);
  const q::Int8Model model = npu::test::random_model(rng, sizes);
  const npu::NpuImage image = npu::build_npu_image(model, target);
  npu::NpuSession session(on(target));
  session.load(image);
  require_agreement(session, image, model, rng, kImages);
  CHECK(session.stats().resends == 0);
  CHECK(session.stats().inferences == kImages);
  const double cycles = static_cast<double>(npu::npu_inference_cycles(image));
  const double utilization = static_cast<double>(image.macs()) / (cycles * static_cast<double>(image.lanes()));
  if (!target.serial_requant) CHECK(utilization > 0.9);
}

}  // namespace

TEST_CASE("npu rtl agrees with int8_forward_ref on a random 2-layer MNIST-shaped model", "[npu]") {
  check_end_to_end(NPU_TEST_EACH_TARGET(), kTwoLayers, 15);
}

TEST_CASE("npu rtl agrees with int8_forward_ref on a random 3-layer MNIST-shaped model", "[npu]") {
  check_end_to_end(NPU_TEST_EACH_TARGET(), kThreeLayers, 16);
}

TEST_CASE("npu gate-level netlist of the iCE40 build agrees with int8_forward_ref, cycle for cycle", "[npu][netlist]") {
  // The post-synthesis netlist (Yosys's SB_SPRAM256KA, SB_MAC16, SB_RAM40_4K and logic cells)
  // through the same host harness: a small model, so that its load stays short at the
  // gate-level model's speed. Only in builds with SEATORCH_NPU_NETLIST (the release preset).
  if (!npu::have_netlist_pins()) {
    WARN("this build has no gate-level model (SEATORCH_NPU_NETLIST is off): nothing to check");
    return;
  }
  const npu::NpuTarget& target = npu::npu_target("icebreaker");
  seatorch::core::Rng rng(21);
  const q::Int8Model model = npu::test::random_model(rng, {48, 12, 10});
  const npu::NpuImage image = npu::build_npu_image(model, target);
  npu::NpuSimOptions options = on(target);
  options.netlist = true;
  npu::NpuSession session(options);
  session.load(image);
  require_agreement(session, image, model, rng, 3);
}

TEST_CASE("npu netlist is refused for a target without an FPGA build", "[npu]") {
  npu::NpuSimOptions options = on(npu::default_npu_target());
  options.netlist = true;
  CHECK_THROWS_WITH(npu::NpuSession(options), Catch::Contains("has no FPGA netlist"));
}
