// make_netlist_pins(): the gate-level model of the icebreaker build behind NpuPins - the
// post-synthesis netlist of npu_ice40 (scripts/fpga.sh netlist) simulated with Yosys's own
// iCE40 cell models, compiled in when seatorch is configured with SEATORCH_NPU_NETLIST
// (cmake/npu_netlist.cmake). Without it the factory says how to get it.
#include "seatorch/npu/rtl_pins.hpp"

#include "seatorch/core/error.hpp"

#if SEATORCH_HAVE_NETLIST
#include <Vnpu_netlist.h>

#include "verilated_pins.hpp"
#endif

namespace seatorch::npu {

bool have_netlist_pins() { return SEATORCH_HAVE_NETLIST != 0; }

std::unique_ptr<NpuPins> make_netlist_pins(const std::filesystem::path& trace) {
#if SEATORCH_HAVE_NETLIST
  return std::make_unique<VerilatedPins<Vnpu_netlist>>(trace);
#else
  (void)trace;
  throw core::input_error("this seatorch was built without the gate-level model of the iCE40 netlist; configure it "
                          "with -DSEATORCH_NPU_NETLIST=ON (needs yosys: scripts/setup.sh)");
#endif
}

}  // namespace seatorch::npu
