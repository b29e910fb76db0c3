// `seatorch serve --npu --pty`: the simulated Mini NPU on a pseudo-terminal, for a host that
// talks to a serial port (`seatorch sim --npu --port PATH`). Prints the PTY's path as the one
// line on stdout, then serves until the host closes it, --exit-after-idle passes, or SIGINT /
// SIGTERM arrives; all three exit 0.
#include "command.hpp"
#include "stop_signal.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/npu/constants.hpp"
#include "seatorch/npu/pty_serve.hpp"
#include "seatorch/npu/target.hpp"

#include <spdlog/spdlog.h>

#include <iostream>
#include <memory>
#include <string>

namespace seatorch::cli {
namespace {

struct ServeFlags {
  bool npu = false;
  bool pty = false;
  npu::PtyServeOptions options;
  std::string target = "default";
};

int run_serve(ServeFlags f) {
  if (!f.npu) throw core::input_error("seatorch serve serves the Mini NPU only: pass --npu");
  if (!f.pty) throw core::input_error("seatorch serve serves on a pseudo-terminal only: pass --pty");
  f.options.target = npu::npu_target(f.target);
  const StopSignals signals;
  const npu::PtyServeSummary s = npu::serve_npu_pty(
      f.options, {[&](const std::string& path) {
                    // The path alone on stdout, flushed at once: a script reads it with `read`.
                    std::cout << path << '\n' << std::flush;
                    spdlog::info("the Mini NPU ({} target{}) listens on {} ({} clocks per bit); connect with "
                                 "`seatorch sim --npu --port {}`",
                                 f.options.target.name, f.options.netlist ? ", gate-level netlist" : "", path,
                                 f.options.clks_per_bit, path);
                  },
                  [] { return StopSignals::received() != 0; }});
  const std::string why =
      StopSignals::received() != 0 ? std::string(StopSignals::name(StopSignals::received())) : npu::describe(s.end);
  spdlog::info("{}: {} bytes from the host, {} to it, {} cycles simulated in {:.1f} s", why, s.bytes_from_host,
               s.bytes_to_host, s.cycles, s.seconds);
  return 0;
}

}  // namespace

Command register_serve(CLI::App& root) {
  auto f = std::make_shared<ServeFlags>();
  CLI::App* app =
      root.add_subcommand("serve", "Serve the simulated Mini NPU on a pseudo-terminal, as a board on a serial port");
  app->add_flag("--npu", f->npu, "Serve the Mini NPU (Verilated RTL)");
  app->add_flag("--pty", f->pty, "On a new pseudo-terminal; its path is printed on stdout");
  app->add_option("--target", f->target, "NPU target to serve")
      ->check(CLI::IsMember(npu::npu_target_names()))
      ->capture_default_str();
  app->add_flag("--netlist", f->options.netlist,
                "Serve the target's post-synthesis FPGA netlist (icebreaker; builds with SEATORCH_NPU_NETLIST)");
  add_count(app, "--clks-per-bit", f->options.clks_per_bit, "UART bit time in NPU clock cycles", npu::kMinClksPerBit,
            65535)
      ->capture_default_str();
  app->add_option("--exit-after-idle", f->options.exit_after_idle,
                  "Stop after this many seconds without a byte from the host (0: never)")
      ->check(kNonNegativeReal)
      ->capture_default_str();
  return Command{app, [f] { return run_serve(*f); }};
}

}  // namespace seatorch::cli
