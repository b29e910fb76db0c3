// The serial host (SerialLink under NpuSession) against the Verilated NPU served on a
// pseudo-terminal by a thread of this test (serve_npu_pty, the library call behind
// `seatorch serve --npu --pty`): a load and inferences that agree with the C++ integer
// reference element by element, a bridge that stops simulating while the host is quiet, and
// the bad cases - a server that goes away mid-run, a PTY that never answers, one that answers
// with noise or never stops sending it, a bad baud rate, a path that is not a port - each one
// InputError in bounded time. No board is attached: the PTY is the serial port.
#include "seatorch/npu/serial_link.hpp"

#include "npu_test_models.hpp"
#include "seatorch/core/argmax.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/npu/image_builder.hpp"
#include "seatorch/npu/pty.hpp"
#include "seatorch/npu/pty_serve.hpp"
#include "seatorch/npu/session.hpp"
#include "seatorch/npu/timing.hpp"
#include "seatorch/quant/int8_model.hpp"

#include <catch2/catch.hpp>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <future>
#include <memory>
#include <string>
#include <thread>

namespace npu = seatorch::npu;
namespace q = seatorch::quant;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

#ifdef SEATORCH_SANITIZED
constexpr std::size_t kImages = 4;
#else
constexpr std::size_t kImages = 20;
#endif

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The simulated NPU on a PTY, served by a thread of this test until the host closes the PTY
// or stop() is called.
class ServedNpu {
 public:
  ServedNpu() {
    std::promise<std::string> path;
    std::future<std::string> ready = path.get_future();
    thread_ = std::thread([this, path = std::move(path)]() mutable {
      try {
        npu::PtyServeOptions options;
        options.exit_after_idle = 60;  // a failed test leaves no server behind for long
        summary_ = npu::serve_npu_pty(
            options, {[&](const std::string& p) { path.set_value(p); }, [this] { return stop_.load(); }});
      } catch (...) {
        error_ = std::current_exception();
        try {
          path.set_exception(error_);
        } catch (const std::future_error&) {  // the path was already given
        }
      }
      done_ = true;
    });
    if (ready.wait_for(20s) != std::future_status::ready) {
      stop();
      throw std::runtime_error("the PTY server did not start");
    }
    path_ = ready.get();
  }
  ~ServedNpu() { stop(); }
  ServedNpu(const ServedNpu&) = delete;
  ServedNpu& operator=(const ServedNpu&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }

  // Waits (at most `timeout`) for the server to end by itself, then ends it; its summary.
  npu::PtyServeSummary finish(std::chrono::milliseconds timeout = 10s) {
    const auto deadline = Clock::now() + timeout;
    while (!done_ && Clock::now() < deadline) std::this_thread::sleep_for(5ms);
    stop();
    if (error_) std::rethrow_exception(error_);
    return summary_;
  }

  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::thread thread_;
  std::string path_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> done_{false};
  npu::PtyServeSummary summary_;
  std::exception_ptr error_;
};

std::unique_ptr<npu::NpuLink> port(const std::string& path, unsigned baud = 3000000, double allowance = 2.0) {
  npu::SerialOptions options;
  options.port = path;
  options.baud = baud;
  options.allowance_seconds = allowance;
  return std::make_unique<npu::SerialLink>(options);
}

// A thread that plays the far end of a bare PTY: after each burst from the host (or all the
// time, `nonstop`) it writes bytes that are no answer - sync bytes, headers and CRCs that do
// not fit, random noise - until stopped.
class NoisyEnd {
 public:
  explicit NoisyEnd(bool nonstop) {
    thread_ = std::thread([this, nonstop] {
      seatorch::core::Rng rng(31);
      std::uint8_t buffer[4096];
      while (!stop_) {
        pollfd p{pty_.fd(), POLLIN, 0};
        const bool heard = ::poll(&p, 1, nonstop ? 0 : 20) > 0 && ::read(pty_.fd(), buffer, sizeof buffer) > 0;
        if (!heard && !nonstop) continue;
        std::vector<std::uint8_t> noise{npu::kSync0, npu::kSync1, npu::kRspAck, 0, 2, 0, 1, 2, 3, 4, 5, 6};
        for (int i = 0; i < 200; ++i) noise.push_back(static_cast<std::uint8_t>(rng.below(256)));
        // A full buffer: the host reads more slowly than this writes.
        if (::write(pty_.fd(), noise.data(), noise.size()) < 0) std::this_thread::sleep_for(1ms);
      }
    });
  }
  ~NoisyEnd() {
    stop_ = true;
    thread_.join();
  }
  NoisyEnd(const NoisyEnd&) = delete;
  NoisyEnd& operator=(const NoisyEnd&) = delete;
  [[nodiscard]] const std::string& path() const { return pty_.slave_path(); }

 private:
  npu::PtyMaster pty_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace

TEST_CASE("serial host loads a model into the NPU served on a PTY and agrees with the reference", "[npu][serial]") {
  seatorch::core::Rng rng(41);
  const q::Int8Model model = npu::test::random_model(rng, {784, 24, 10});
  const npu::NpuImage image = npu::build_npu_image(model);
  ServedNpu server;
  std::uint64_t bytes_sent = 0;
  {
    npu::NpuSession session(port(server.path()), 8);
    const npu::NpuStatus status = session.status();
    CHECK(status.lanes == npu::kLanes);
    CHECK_FALSE(status.image_valid);
    const std::vector<std::uint8_t> data = npu::test::random_image(rng, 300);
    CHECK(session.echo(data) == data);
    session.load(image);
    CHECK(session.status().image_valid);
    for (std::size_t n = 0; n < kImages; ++n) {
      const std::vector<std::uint8_t> pixels = npu::test::random_image(rng, model.inputs());
      const std::vector<std::int8_t> expected = q::int8_forward_ref(model, pixels);
      const npu::NpuInference got = session.infer(pixels);
      INFO("image " << n);
      REQUIRE(got.logits.size() == expected.size());
      for (std::size_t k = 0; k < expected.size(); ++k) {
        INFO("logit " << k << ": NPU " << int{got.logits[k]} << ", reference " << int{expected[k]});
        REQUIRE(got.logits[k] == expected[k]);
      }
      REQUIRE(got.predicted == seatorch::core::argmax(expected));
      REQUIRE(got.npu_cycles == npu::npu_inference_cycles(image));  // the NPU's own count, over the port
    }
    const npu::NpuStats& st = session.stats();
    CHECK(st.resends == 0);
    CHECK(st.inferences == kImages);
    CHECK(st.cycles == 0);  // a port does not show the NPU's clock
    CHECK(st.load_seconds > 0.0);
    CHECK(st.inference_seconds > 0.0);
    bytes_sent = st.bytes_to_npu;
  }
  // The session closed the port: the server ends on its own, having carried every byte.
  const npu::PtyServeSummary served = server.finish();
  CHECK(served.end == npu::PtyServeEnd::kHostClosed);
  CHECK(served.bytes_from_host == bytes_sent);
}

TEST_CASE("the PTY bridge stops simulating while the host is quiet", "[npu][serial]") {
  ServedNpu server;
  {
    npu::NpuSession session(port(server.path()), 1);
    const unsigned before = session.status().frames_acked;
    // At ~11 M cycles/s a bridge that kept simulating would run millions of cycles here.
    std::this_thread::sleep_for(400ms);
    CHECK(session.status().frames_acked == before + 1);
    CHECK(session.stats().resends == 0);
  }
  const npu::PtyServeSummary served = server.finish();
  CHECK(served.end == npu::PtyServeEnd::kHostClosed);
  // Two STATUS exchanges, each followed by the wait an answer may take: well under 1 M cycles.
  CHECK(served.cycles < 1'000'000);
}

TEST_CASE("the PTY bridge ends after its idle time when no host comes", "[npu][serial]") {
  npu::PtyServeOptions options;
  options.exit_after_idle = 0.3;
  std::string path;
  const auto start = Clock::now();
  const npu::PtyServeSummary served = npu::serve_npu_pty(options, {[&](const std::string& p) { path = p; }, {}});
  CHECK(served.end == npu::PtyServeEnd::kIdle);
  CHECK(served.path == path);
  CHECK(path.rfind("/dev/", 0) == 0);
  CHECK(seconds_since(start) < 5.0);
}

TEST_CASE("the PTY bridge with an idle time past any clock still stops when asked", "[npu][serial]") {
  // 1e300 s in milliseconds overflowed an int: the poll waited forever, deaf to should_stop.
  npu::PtyServeOptions options;
  options.exit_after_idle = 1e300;
  const auto start = Clock::now();
  const npu::PtyServeSummary served =
      npu::serve_npu_pty(options, {[](const std::string&) {}, [&] { return seconds_since(start) > 0.3; }});
  CHECK(served.end == npu::PtyServeEnd::kStopped);
  CHECK(seconds_since(start) < 5.0);
  options.exit_after_idle = std::nan("");
  CHECK_THROWS_WITH(npu::serve_npu_pty(options, {}), Catch::Contains("the idle time must not be negative (got nan s)"));
}

TEST_CASE("serial host reports a server that goes away mid-run", "[npu][serial]") {
  seatorch::core::Rng rng(42);
  const q::Int8Model model = npu::test::random_model(rng, {40, 12, 10});
  const npu::NpuImage image = npu::build_npu_image(model);
  ServedNpu server;
  npu::NpuSession session(port(server.path()), 8);
  session.load(image);
  const std::vector<std::uint8_t> pixels = npu::test::random_image(rng, model.inputs());
  CHECK(session.infer(pixels).logits == q::int8_forward_ref(model, pixels));
  server.stop();  // closes the PTY's master end under the host
  const auto start = Clock::now();
  CHECK_THROWS_AS(session.infer(pixels), seatorch::core::InputError);
  CHECK_THROWS_WITH(session.infer(pixels), Catch::Contains("the port went away"));
  CHECK(seconds_since(start) < 5.0);
}

TEST_CASE("serial host gives up on a PTY whose other end never answers", "[npu][serial]") {
  const npu::PtyMaster silent;  // open, never read, never written
  npu::NpuSession session(port(silent.slave_path(), 115200, 0.2), 8);
  const auto start = Clock::now();
  CHECK_THROWS_WITH(session.status(), Catch::Contains("did not accept STATUS after 8 attempts") &&
                                          Catch::Contains("no answer") && Catch::Contains(silent.slave_path()));
  CHECK(session.stats().timeouts == 8);
  CHECK(session.stats().resends == 7);
  CHECK(seconds_since(start) < 10.0);  // 8 waits of 0.2 s plus the wire time and quiet checks
}

TEST_CASE("serial host rejects noise from the other end in bounded time", "[npu][serial]") {
  SECTION("noise after each request") {
    const NoisyEnd noisy(false);
    npu::NpuSession session(port(noisy.path(), 3000000, 0.2), 8);
    const auto start = Clock::now();
    CHECK_THROWS_AS(session.status(), seatorch::core::InputError);
    CHECK(session.stats().bad_responses + session.stats().timeouts > 0);
    CHECK(seconds_since(start) < 15.0);
  }
  SECTION("noise that never stops") {
    const NoisyEnd noisy(true);
    npu::NpuSession session(port(noisy.path(), 3000000, 0.2), 8);
    const auto start = Clock::now();
    CHECK_THROWS_WITH(session.status(), Catch::Contains("bytes keep arriving that are not answers"));
    CHECK(seconds_since(start) < 5.0);
  }
}

TEST_CASE("serial link refuses bad baud rates and paths that are not ports", "[npu][serial]") {
  CHECK_THROWS_WITH(npu::check_serial_baud(12345), Catch::Contains("12345 baud is not supported") &&
                                                       Catch::Contains("115200") && Catch::Contains("921600") &&
                                                       Catch::Contains("3000000"));
  for (const unsigned baud : npu::kSerialBauds) CHECK_NOTHROW(npu::check_serial_baud(baud));
  const npu::PtyMaster pty;
  CHECK_THROWS_WITH(port(pty.slave_path(), 9600), Catch::Contains("9600 baud is not supported"));
  CHECK_THROWS_WITH(port("/nonexistent/ttyUSB9"), Catch::Contains("/nonexistent/ttyUSB9: no such serial port"));
  CHECK_THROWS_WITH(port("/dev/null"), Catch::Contains("/dev/null is not a serial port"));
  CHECK_THROWS_WITH(port(pty.slave_path(), 3000000, 0.0), Catch::Contains("must be positive"));
  // Past an hour, and past what a deadline in nanoseconds can hold: 1e300 s made the first wait's
  // deadline wrap into the past, and the host gave up at once with a garbled time.
  CHECK_THROWS_WITH(port(pty.slave_path(), 3000000, 1e300), Catch::Contains("at most 3600 s (got 1e+300 s)"));
  CHECK_THROWS_WITH(port(pty.slave_path(), 3000000, std::nan("")), Catch::Contains("must be positive"));
  CHECK_NOTHROW(port(pty.slave_path(), 3000000, npu::kMaxAnswerAllowanceSeconds));
  CHECK_NOTHROW(port(pty.slave_path(), 921600));
}
