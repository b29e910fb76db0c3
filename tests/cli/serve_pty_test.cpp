// `seatorch serve --npu --pty` and `seatorch sim --npu --port` end to end on the real binary:
// the server prints its PTY's path, the host runs 20 MNIST test images through it at 3 Mbaud
// against a small exported model, every class and logit agrees with the integer reference,
// and both exit 0 (the server when the host closes the PTY). Scratch files live in a
// directory unique to this test and process.
#include "child_process.hpp"

#include "../data/data_test_util.hpp"
#include "../npu/npu_test_models.hpp"
#include "seatorch/npu/hex.hpp"
#include "seatorch/npu/image_builder.hpp"

#include <catch2/catch.hpp>

#include <csignal>
#include <sstream>
#include <string>

using seatorch::test::ChildProcess;
using seatorch::test::run_seatorch;
using seatorch::test::seatorch_binary;
using namespace std::chrono_literals;

namespace {

// The first line of `output` that is a device path (the server's stdout, among its log lines).
std::string device_line(const std::string& output) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("/dev/", 0) == 0) return line;
  }
  return {};
}

}  // namespace

TEST_CASE("seatorch sim --port runs MNIST images through seatorch serve --npu --pty", "[npu][serial][cli]") {
  const seatorch::test::ScratchDir dir;
  seatorch::core::Rng rng(43);
  const seatorch::quant::Int8Model model = seatorch::npu::test::random_model(rng, {784, 16, 10});
  seatorch::npu::write_npu_hex(dir / "model.hex", seatorch::npu::build_npu_image(model));

  ChildProcess server(seatorch_binary(), {"serve", "--npu", "--pty", "--exit-after-idle", "60"});
  REQUIRE(server.wait_for_line("/dev/", 20s));
  const std::string path = device_line(server.output());
  INFO(server.output());
  REQUIRE_FALSE(path.empty());

  const std::string hex = (dir / "model.hex").string();
  const std::string data = seatorch::test::mnist_small_dir().string();
  const auto host = run_seatorch(
      {"sim", "--npu", "--port", path, "--baud", "3000000", "--images", "20", "--hex", hex, "--data-dir", data});
  INFO(host.output);
  CHECK(host.exit_code == 0);
  CHECK(host.output.find("on " + path + " at 3000000 baud, 20 mnist test images") != std::string::npos);
  CHECK(host.output.find("agreement           classes 20/20, logits 20/20") != std::string::npos);
  CHECK(host.output.find(" requests, 0 resends (0 NAKs") != std::string::npos);

  const int server_code = server.finish(20s);
  INFO(server.output());
  CHECK(server_code == 0);
  CHECK(server.output().find("the host closed the port") != std::string::npos);
}

TEST_CASE("seatorch serve --npu --pty exits 0 on SIGTERM", "[npu][serial][cli]") {
  ChildProcess server(seatorch_binary(), {"serve", "--npu", "--pty"});
  REQUIRE(server.wait_for_line("/dev/", 20s));
  server.send_signal(SIGTERM);
  const int code = server.finish(10s);
  INFO(server.output());
  CHECK(code == 0);
  CHECK(server.output().find("SIGTERM") != std::string::npos);
}
