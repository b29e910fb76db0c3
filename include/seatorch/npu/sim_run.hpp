// One `seatorch sim --npu` run as a library call: read a .hex image, load it into the
// simulated Mini NPU of its target (the manifest's, target.hpp) over its UART pins, stream
// test images through it, and compare every
// answer (class and each int8 logit) with the C++ integer reference model that the same
// image encodes. Reports accuracy, agreement, cycles, MAC utilization, bytes on the wire,
// equivalent wall times at a clock and at standard baud rates, and the simulation speed.
// With fault rates it injects bit errors and lost bytes on both directions of the line and
// reports what the protocol detected, the resends and what they cost.
// With a serial port (SimRunOptions::serial.port) the same protocol, load and comparison run
// against the NPU at the port's other end (a board, or `seatorch serve --npu --pty`), and
// wall-clock times take the place of the simulated cycles the host cannot see there.
// Deliberately not here: printing and argument parsing.
#pragma once

#include "seatorch/data/registry.hpp"
#include "seatorch/npu/serial_link.hpp"
#include "seatorch/npu/session.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace seatorch::npu {

struct SimRunOptions {
  std::filesystem::path hex = "seatorch-out/model.hex";
  std::string target;      // the NPU target; empty: the one the manifest names, else default
  bool netlist = false;    // the target's gate-level FPGA netlist instead of its RTL
  data::DataOptions data;  // the test images (name defaults to mnist)
  std::size_t images = 0;  // the first N test images; 0: all
  unsigned clks_per_bit = kMinClksPerBit;
  double clock_mhz = 0.0;       // for the equivalent wall times; 0: the target's clock
  std::filesystem::path trace;  // FST waveform; empty: none
  LineFaultRates faults;        // injected on both directions of the line
  std::uint64_t seed = 0;       // of the injected faults
  SerialOptions serial;         // port empty: simulate the NPU; else the NPU on that port
};

struct SimRunSummary {
  std::string target;  // the NPU target simulated
  std::string model;   // "RTL", "gate-level netlist" or "a board on a serial port"
  std::string target_description;
  std::size_t lanes = 0;
  std::string dataset;
  std::string architecture;
  std::size_t images = 0;
  std::size_t correct = 0;           // NPU class == label
  std::size_t class_agreement = 0;   // NPU class == reference class
  std::size_t logits_agreement = 0;  // every NPU logit == the reference's
  std::size_t first_mismatch = SIZE_MAX;
  double cycles_per_inference = 0.0;  // NPU compute cycles (first layer to last logit)
  double ideal_cycles = 0.0;          // MACs / lanes
  double mac_utilization = 0.0;       // ideal / actual
  std::uint64_t load_bytes = 0;       // both directions
  std::uint64_t load_cycles = 0;
  double inference_bytes = 0.0;  // per image, both directions
  double wire_cycles_per_inference = 0.0;
  unsigned clks_per_bit = 0;
  double clock_mhz = 0.0;
  LineFaultRates faults;
  std::uint64_t seed = 0;
  unsigned max_attempts = 0;  // sends of one request before giving up
  std::string port;           // the serial port; empty: the simulated NPU
  unsigned baud = 0;          // of the port
  NpuStats stats;

  [[nodiscard]] double accuracy() const;
  [[nodiscard]] double agreement() const;
  [[nodiscard]] double logits_agreement_rate() const;
  // Extra simulated time the failed sends cost, relative to the same run on a clean line.
  [[nodiscard]] double retry_cost() const;
  // Wall time per image on the line, request to response (what a port run measures).
  [[nodiscard]] double seconds_per_image() const;
  [[nodiscard]] nlohmann::json to_json() const;
};

// Called after each image with the number done so far.
using SimProgress = std::function<void(std::size_t done, std::size_t total)>;

SimRunSummary run_sim(const SimRunOptions& options, const SimProgress& progress = {});

}  // namespace seatorch::npu
