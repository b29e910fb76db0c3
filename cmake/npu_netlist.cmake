# The gate-level model of the iCE40 build (SEATORCH_NPU_NETLIST, off by default): the
# post-synthesis netlist of npu_ice40 that `scripts/fpga.sh netlist` writes (the same yosys
# run as the bitstream's, without the PLL and pins), compiled by Verilator together with
# Yosys's own models of the iCE40 cells (ice40/cells_sim.v) into seatorch_npu_rtl as
# Vnpu_netlist. `seatorch sim --npu --target icebreaker --netlist` then drives it through the
# same host harness as the RTL: what it checks is the synthesized circuit - the memories and
# multipliers as Yosys inferred them, every flop's reset, the SPRAM and SB_MAC16 primitives.
#
# Needs yosys at configure time: verilate() runs Verilator then, so the netlist must exist;
# it is made once at configure time and again whenever the RTL changes.
# Deliberately off by default: the synthesis takes about half a minute and the model's C++
# a few minutes to compile, which only the netlist check (scripts/test.sh) needs.
option(SEATORCH_NPU_NETLIST "Compile the iCE40 gate-level netlist model (needs yosys)" OFF)

function(seatorch_add_npu_netlist target)
  find_program(SEATORCH_YOSYS yosys)
  if(NOT SEATORCH_YOSYS)
    message(FATAL_ERROR "SEATORCH_NPU_NETLIST needs yosys: run scripts/setup.sh (Debian package yosys)")
  endif()
  get_filename_component(yosys_bin_dir "${SEATORCH_YOSYS}" DIRECTORY)
  set(cells_sim "${yosys_bin_dir}/../share/yosys/ice40/cells_sim.v")
  if(NOT EXISTS "${cells_sim}")
    message(FATAL_ERROR "Yosys's iCE40 cell models are missing (${cells_sim})")
  endif()

  set(netlist "${PROJECT_BINARY_DIR}/npu_netlist/npu_ice40_netlist.v")
  set(netlist_inputs ${ARGN} rtl/ice40/npu_spram.sv scripts/fpga.sh)
  list(TRANSFORM netlist_inputs PREPEND "${PROJECT_SOURCE_DIR}/")
  if(NOT EXISTS "${netlist}")
    message(STATUS "seatorch: synthesizing the iCE40 netlist for the gate-level model")
    file(MAKE_DIRECTORY "${PROJECT_BINARY_DIR}/npu_netlist")
    execute_process(COMMAND "${PROJECT_SOURCE_DIR}/scripts/fpga.sh" netlist "${netlist}"
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "scripts/fpga.sh netlist failed (${rc})")
    endif()
  endif()
  add_custom_command(OUTPUT "${netlist}"
    COMMAND "${PROJECT_SOURCE_DIR}/scripts/fpga.sh" netlist "${netlist}"
    DEPENDS ${netlist_inputs}
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    COMMENT "Synthesizing the iCE40 netlist (yosys)")

  # The cell models are not lint-clean and the netlist is flat and generated: only errors
  # count. NO_ICE40_DEFAULT_ASSIGNMENTS: Verilator 5.006 rejects the models' port defaults
  # (TOOLCHAIN.md). -O1: the generated C++ is large, and -O3 buys little on a flat netlist.
  verilate(${target}
    SOURCES "${cells_sim}" "${netlist}"
    TOP_MODULE npu_ice40
    PREFIX Vnpu_netlist
    TRACE_FST
    VERILATOR_ARGS -DNO_ICE40_DEFAULT_ASSIGNMENTS -Wno-fatal -Wno-lint -Wno-style
                   -Wno-UNOPTFLAT -Wno-MULTIDRIVEN -Wno-TIMESCALEMOD
    OPT_FAST -O1
    OPT_SLOW -O0
    OPT_GLOBAL -O1)
endfunction()
