// `seatorch sim --npu`: runs the test set through the Verilated Mini NPU of the image's target
// (--target; its gate-level netlist with --netlist) over its UART and reports agreement with
// the integer reference, cycles and wire times; optionally with faults injected on the line
// (--inject-bit-errors, --inject-drops, --seed), or through the NPU on a serial port instead
// (--port, --baud, --timeout).
#include "command.hpp"
#include "progress.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/npu/constants.hpp"
#include "seatorch/npu/sim_run.hpp"
#include "seatorch/npu/target.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>
#include <utility>

namespace seatorch::cli {
namespace {

struct SimFlags {
  bool npu = false;
  npu::SimRunOptions options;
  std::string hex = "seatorch-out/model.hex";
  std::string dataset = "mnist";
  std::string data_dir;
  std::string trace;
  std::string port;
  bool json = false;
};

// The simulated line's flags and the port's exclude each other: say which one is wrong.
void check_line_flags(const CLI::App& app, const SimFlags& f) {
  if (f.port.empty()) {
    if (const auto flag = first_given(app, {"--baud", "--timeout"})) {
      throw core::input_error("{} is a serial port's setting: it needs --port", *flag);
    }
    return;
  }
  if (const auto flag = first_given(
          app, {"--trace", "--inject-bit-errors", "--inject-drops", "--seed", "--clks-per-bit", "--netlist"})) {
    throw core::input_error("{} exists only on the simulated line; it cannot be used with --port", *flag);
  }
}

void print_faults(const npu::SimRunSummary& s) {
  const npu::NpuStats& st = s.stats;
  std::cout << fmt::format("  line faults         bit-error rate {:g}, drop rate {:g}, seed {}\n",
                           s.faults.bit_error_rate, s.faults.drop_rate, s.seed);
  for (const auto& [name, c] : {std::pair{"to NPU", st.faults_to_npu}, std::pair{"from NPU", st.faults_from_npu}}) {
    std::cout << fmt::format("    {:<8}          {} bits inverted, {} bytes dropped: {} of {} bytes hit\n", name,
                             c.bit_flips, c.drops, c.bytes_hit, c.bytes);
  }
  std::cout << fmt::format("    sends hit         {}: {} detected, {} undetected\n", st.faulted_sends,
                           st.faulted_sends - st.undetected, st.undetected);
  std::cout << fmt::format("    failed sends      {} ({} NAKs, {} timeouts, {} bad responses), {} resends\n",
                           st.failed_sends, st.naks, st.timeouts, st.bad_responses, st.resends);
  std::cout << fmt::format("    cost              {} cycles of failed sends: {:.1f}% longer than a clean line\n",
                           st.retry_cycles, 100.0 * s.retry_cost());
}

void print_report(const npu::SimRunSummary& s) {
  const nlohmann::json j = s.to_json();
  const bool on_port = !s.port.empty();
  if (on_port) {
    std::cout << fmt::format("Mini NPU ({}) on {} at {} baud, {} {} test images\n", s.architecture, s.port, s.baud,
                             s.images, s.dataset);
  } else {
    std::cout << fmt::format("Mini NPU ({}), {} {} test images, {} clocks per bit\n", s.architecture, s.images,
                             s.dataset, s.clks_per_bit);
  }
  std::cout << fmt::format("  target              {}: {} ({})\n", s.target, s.target_description, s.model);
  std::cout << fmt::format("  accuracy            {:.4f}\n", s.accuracy());
  std::cout << fmt::format("  agreement           classes {}/{}, logits {}/{} (vs the C++ integer reference)\n",
                           s.class_agreement, s.images, s.logits_agreement, s.images);
  std::cout << fmt::format("  cycles/inference    {:.0f} (ideal MACs/lanes {:.0f}, MAC utilization {:.1f}%)\n",
                           s.cycles_per_inference, s.ideal_cycles, 100.0 * s.mac_utilization);
  std::cout << fmt::format("  bytes on the wire   load {}, per image {:.0f}\n", s.load_bytes, s.inference_bytes);
  if (!on_port) {
    std::cout << fmt::format("  {:<20}load {:.3f} s, per image {:.3f} ms\n", fmt::format("at {:g} MHz", s.clock_mhz),
                             j.at("load_seconds_at_clock").get<double>(),
                             1e3 * j.at("inference_seconds_at_clock").get<double>());
  }
  for (const auto& b : j.at("at_baud")) {
    std::cout << fmt::format("  at {:>7.0f} baud     load {:.2f} s, per image {:.2f} ms ({:.0f} images/s)\n",
                             b.at("baud").get<double>(), b.at("load_seconds").get<double>(),
                             1e3 * b.at("inference_seconds").get<double>(), b.at("images_per_second").get<double>());
  }
  if (s.faults.any()) print_faults(s);
  if (on_port) {
    // What a real line lets the host measure: wall time and bytes, not the NPU's cycles.
    const npu::NpuStats& st = s.stats;
    std::cout << fmt::format("  measured            load {:.2f} s, per image {:.2f} ms ({:.0f} images/s)\n",
                             st.load_seconds, 1e3 * s.seconds_per_image(), j.at("images_per_second").get<double>());
    std::cout << fmt::format("  line                {} bytes to the NPU, {} from it; {} requests, {} resends ({} NAKs, "
                             "{} timeouts, {} bad responses)\n",
                             st.bytes_to_npu, st.bytes_from_npu, st.requests, st.resends, st.naks, st.timeouts,
                             st.bad_responses)
              << std::flush;
    return;
  }
  std::cout << fmt::format("  simulation          {} cycles in {:.1f} s ({:.1f} M cycles/s)\n", s.stats.cycles,
                           s.stats.link_seconds, s.stats.cycles_per_second() / 1e6)
            << std::flush;
}

int run_sim_command(const CLI::App& app, SimFlags f) {
  if (!f.npu) throw core::input_error("seatorch sim simulates the Mini NPU only: pass --npu");
  check_line_flags(app, f);
  f.options.hex = f.hex;
  f.options.data.name = f.dataset;
  f.options.data.data_dir = f.data_dir;
  f.options.trace = f.trace;
  f.options.serial.port = f.port;
  std::unique_ptr<ProgressBar> bar;
  const npu::SimRunSummary s = npu::run_sim(f.options, [&](std::size_t done, std::size_t total) {
    if (!bar) bar = std::make_unique<ProgressBar>("npu", total, stderr_is_terminal());
    bar->update(done, "");
  });
  if (bar) bar->finish();
  if (s.class_agreement != s.images || s.logits_agreement != s.images) {
    spdlog::error("the NPU disagrees with the integer reference on {} of {} images (first: test image {})",
                  s.images - std::min(s.class_agreement, s.logits_agreement), s.images, s.first_mismatch);
  }
  if (f.json) {
    print_json(s.to_json());
  } else {
    print_report(s);
  }
  // A disagreement is a bug in seatorch (exporter, RTL or reference), not bad input.
  return s.class_agreement == s.images && s.logits_agreement == s.images ? 0 : 2;
}

}  // namespace

Command register_sim(CLI::App& root) {
  auto f = std::make_shared<SimFlags>();
  CLI::App* app = root.add_subcommand("sim", "Run test images through the Mini NPU (Verilated RTL) over its UART");
  Command command{app, {}};
  app->add_flag("--npu", f->npu, "Simulate the Mini NPU");
  app->add_option("--hex", f->hex, "NPU image written by `seatorch export --hex`")->capture_default_str();
  app->add_option("--target", f->options.target,
                  "NPU target to simulate (default: the one the image was exported for, named by its manifest)")
      ->check(CLI::IsMember(npu::npu_target_names()));
  app->add_flag("--netlist", f->options.netlist,
                "Simulate the target's post-synthesis FPGA netlist (icebreaker; builds with SEATORCH_NPU_NETLIST)");
  command.sets("data set", app->add_option("--dataset", f->dataset, "Data set of the test images"))
      ->check(CLI::IsMember(data::dataset_names()))
      ->capture_default_str();
  command.sets("data directory", app->add_option("--data-dir", f->data_dir, "Directory of the data set's files"));
  add_count(app, "--images", f->options.images, "Run the first N test images (0: all)")->capture_default_str();
  add_count(app, "--clks-per-bit", f->options.clks_per_bit, "UART bit time in NPU clock cycles", npu::kMinClksPerBit,
            65535)
      ->capture_default_str();
  app->add_option("--clock-mhz", f->options.clock_mhz,
                  "NPU clock for the equivalent wall times (default: the clock of the target)")
      ->check(kPositiveReal);
  app->add_option("--inject-bit-errors", f->options.faults.bit_error_rate,
                  "Invert each bit on the line (both directions) with this probability")
      ->check(real_in(0.0, 0.999999))
      ->capture_default_str();
  app->add_option("--inject-drops", f->options.faults.drop_rate,
                  "Lose each byte on the line (both directions) with this probability")
      ->check(real_in(0.0, 0.999999))
      ->capture_default_str();
  add_count(app, "--seed", f->options.seed, "Seed of the injected faults")->capture_default_str();
  app->add_option("--trace", f->trace, "Write an FST waveform of every clock edge (large: use with --images 1)");
  app->add_option("--port", f->port,
                  "Run on the NPU at this serial port (a board, or `seatorch serve --npu --pty`) instead of "
                  "simulating it");
  add_count(app, "--baud", f->options.serial.baud,
            fmt::format("Line rate of --port: {}", fmt::join(npu::kSerialBauds, ", ")), 1)
      ->capture_default_str();
  app->add_option("--timeout", f->options.serial.allowance_seconds,
                  "Seconds allowed for each answer on --port, on top of its time on the wire")
      ->check(positive_real_at_most(npu::kMaxAnswerAllowanceSeconds))
      ->capture_default_str();
  app->add_flag("--json", f->json, "Print the results as one JSON object on stdout");
  command.run = [f, app] { return run_sim_command(*app, *f); };
  return command;
}

}  // namespace seatorch::cli
