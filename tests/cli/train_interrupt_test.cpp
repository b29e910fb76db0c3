// Crash-safe training, end to end on the real binary: `seatorch train` on the committed MNIST
// subset is stopped by SIGINT (exit 130), its resumed run by SIGTERM (exit 143), a resume
// with a conflicting flag is refused (exit 1), and the last resume completes. The oracle is
// the same command never interrupted: the final checkpoints must be byte-identical (weights
// and metadata) and every epoch's loss in metrics.json equal. Also: the readers' refusal of
// corrupted files reaches the user as one line and exit code 1.
#include "../scratch_dir.hpp"
#include "child_process.hpp"

#include "seatorch/io/safetensors.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace fs = std::filesystem;
using seatorch::test::ChildProcess;
using seatorch::test::run_seatorch;
using seatorch::test::seatorch_binary;
using namespace std::chrono_literals;

namespace {

// A small model on the 2,000-image subset: 63 steps per epoch, ~20 ms in Release, so a signal
// sent on the first epoch's log line lands with ~0.4 s of training left.
std::vector<std::string> train_args(const fs::path& out) {
  return {"train",    "--dataset", "mnist",    "--data-dir", std::string(SEATORCH_SOURCE_DIR) + "/data/mnist-small",
          "--hidden", "32",        "--epochs", "20",         "--batch",
          "32",       "--dropout", "0.2",      "--seed",     "7",
          "--out",    out.string()};
}

std::vector<char> file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// Starts `args`, waits for a line holding `cue`, sends `signal`; returns the exit code (-1
// when the cue never came).
int interrupt(const std::vector<std::string>& args, std::string_view cue, int signal, std::string& output) {
  ChildProcess child(seatorch_binary(), args);
  const bool started = child.wait_for_line(cue, 60s);
  if (started) child.send_signal(signal);
  const int code = child.finish(60s);
  output = child.output();
  return started ? code : -1;
}

}  // namespace

TEST_CASE("seatorch train stopped by SIGINT then SIGTERM and resumed ends bit-identical", "[train][cli]") {
  const seatorch::test::ScratchDir dir;
  const fs::path straight = dir / "straight" / "model.safetensors";
  const fs::path out = dir / "run" / "model.safetensors";
  const fs::path resume = dir / "run" / "resume.safetensors";

  const auto uninterrupted = run_seatorch(train_args(straight));
  INFO(uninterrupted.output);
  REQUIRE(uninterrupted.exit_code == 0);

  std::string output;
  // After the first epoch's 63 steps.
  const int sigint_code = interrupt(train_args(out), "epoch   1/20", SIGINT, output);
  INFO(output);
  REQUIRE(sigint_code == 130);
  CHECK(output.find("interrupted by SIGINT") != std::string::npos);
  CHECK(output.find("--resume " + resume.string()) != std::string::npos);
  CHECK(fs::exists(resume));
  CHECK_FALSE(fs::exists(out));  // nothing but the resume file until the run completes

  // As soon as the resumed run starts (its handlers are in place then): it stops after one step.
  const int sigterm_code =
      interrupt({"train", "--resume", resume.string()}, "resuming training on mnist", SIGTERM, output);
  INFO(output);
  REQUIRE(sigterm_code == 143);
  CHECK(output.find("interrupted by SIGTERM") != std::string::npos);

  const auto conflict = run_seatorch({"train", "--resume", resume.string(), "--lr", "0.5", "--seed", "7"});
  INFO(conflict.output);
  CHECK(conflict.exit_code == 1);
  CHECK(conflict.output.find("cannot resume: --lr 0.5 (the run used 0.002)") != std::string::npos);
  CHECK(conflict.output.find("--seed") == std::string::npos);  // the same value is no conflict

  // --resume without a value: resume.safetensors beside --out.
  const auto finished = run_seatorch({"train", "--out", out.string(), "--resume"});
  INFO(finished.output);
  REQUIRE(finished.exit_code == 0);
  CHECK_FALSE(fs::exists(resume));

  const seatorch::io::SafetensorsFile a = seatorch::io::load_safetensors(straight);
  const seatorch::io::SafetensorsFile b = seatorch::io::load_safetensors(out);
  REQUIRE(a.tensors.size() == b.tensors.size());
  for (const auto& [name, tensor] : a.tensors) {
    INFO("tensor " << name);
    CHECK(b.tensors.at(name).bytes == tensor.bytes);
  }
  CHECK(file_bytes(out) == file_bytes(straight));

  const nlohmann::json history_a = read_json(straight.parent_path() / "metrics.json")["history"];
  const nlohmann::json history_b = read_json(out.parent_path() / "metrics.json")["history"];
  REQUIRE(history_b.size() == 20);
  for (std::size_t e = 0; e < history_a.size(); ++e) {
    INFO("epoch " << e + 1);
    CHECK(history_b[e]["loss"] == history_a[e]["loss"]);
    CHECK(history_b[e]["train_accuracy"] == history_a[e]["train_accuracy"]);
    CHECK(history_b[e]["test_accuracy"] == history_a[e]["test_accuracy"]);
  }
}

TEST_CASE("a corrupted model file makes seatorch eval exit 1 with one line", "[io][cli]") {
  const seatorch::test::ScratchDir dir;
  seatorch::io::SafetensorsFile file;
  const std::vector<float> w{0.5f, -1.0f};
  file.tensors["0.weight"] = seatorch::io::make_tensor<float>({1, 2}, w);
  file.tensors["0.bias"] = seatorch::io::make_tensor<float>({1}, std::span(w.data(), 1));
  const fs::path model = dir / "model.safetensors";
  seatorch::io::save_safetensors(model, file);
  std::vector<char> bytes = file_bytes(model);
  bytes[bytes.size() - 2] ^= 0x10;
  std::ofstream(model, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));

  const auto corrupted = run_seatorch({"eval", "--model", model.string(), "--dataset", "xor"});
  INFO(corrupted.output);
  CHECK(corrupted.exit_code == 1);
  CHECK(corrupted.output == "seatorch: error: " + model.string() + " is corrupted: " +
                                corrupted.output.substr(corrupted.output.find("checksum mismatch")));
  CHECK(corrupted.output.find("re-train or re-download it\n") != std::string::npos);
  CHECK(std::count(corrupted.output.begin(), corrupted.output.end(), '\n') == 1);

  fs::resize_file(model, 40);
  const auto truncated = run_seatorch({"eval", "--model", model.string(), "--dataset", "xor"});
  INFO(truncated.output);
  CHECK(truncated.exit_code == 1);
  CHECK(truncated.output.find("truncated") != std::string::npos);
  CHECK(std::count(truncated.output.begin(), truncated.output.end(), '\n') == 1);
}
