// How fast each CPU is alone, in the two ways training leans on it: the FMA peak (what the
// dense products run at) and one sparse product whose every FMA waits on a load from L1 (the
// first layer's forward, on a fixed batch of synthetic digits).
//
// On a virtual machine two vCPUs need not be alike. On the Zen 5 guests one of the two at a
// time ran the sparse product a fifth to a third slower than the other (50-52 against 62-70
// us; one reading 92), and the default model's one-thread epoch 22 % slower, while both
// reached the same FMA peak: another guest's thread sharing the core, by the look of it, and
// which one was slow changed within minutes (DECISIONS 74). A one-thread figure then depends
// on the CPU it ran on, and a two-thread one is held back by the slower; the FMA probe alone
// does not show it. Nor does either CPU alone show that in some minutes the two cannot both
// run at full speed: the same product on both at once then took twice as long on each, with
// no data shared (DECISIONS 82); sparse_products_at_once() measures that.
// Deliberately not here: choosing a CPU for the caller (the scripts pin their one-thread rows
// themselves), the round trip between CPUs (cpu_distance.hpp).
#pragma once

#include "seatorch/kernels/sparse_matmul.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace seatorch::bench {

// The product cpu_speed() times: kSparseProbeRows synthetic 28 x 28 digits (a ring of ink
// each, some 17 % of the pixels, about MNIST's share) times Wᵀ of a 784-128 layer, as the
// first layer's forward multiplies them, with the kernel training uses.
inline constexpr std::size_t kSparseProbeRows = 128;
inline constexpr std::size_t kSparseProbeDepth = 784;
inline constexpr std::size_t kSparseProbeWidth = 128;

class SparseProbe {
 public:
  SparseProbe();
  // One product on the calling thread (never split across the pool's threads), into output().
  void run();
  [[nodiscard]] std::span<const float> batch() const { return x_; }    // (rows, depth)
  [[nodiscard]] std::span<const float> weights() const { return w_; }  // (width, depth)
  [[nodiscard]] std::span<const float> output() const { return c_; }   // (rows, width)
  [[nodiscard]] const kernels::SparseRows& rows() const { return a_[0]; }

 private:
  std::vector<float> x_;  // (kSparseProbeRows, kSparseProbeDepth)
  std::vector<float> w_;  // (kSparseProbeWidth, kSparseProbeDepth)
  std::vector<float> c_;  // (kSparseProbeRows, kSparseProbeWidth)
  kernels::SparseCopies a_;
  kernels::SparseMatmulArgs args_;
};

struct CpuSpeed {
  std::size_t cpu = 0;
  std::optional<double> fma_gflops;  // the best ISA's FMA probe alone; nullopt where no kernel has one
  double sparse_product_us = 0.0;    // SparseProbe::run, median of kSparseProbeSamples samples
  // The same with every CPU of allowed_cpu_speeds() running it at once (sparse_products_at_once);
  // nullopt from cpu_speed(), and with a single CPU.
  std::optional<double> sparse_product_at_once_us;
};

inline constexpr std::size_t kSparseProbeSamples = 7;

// Both figures for `cpu`, measured on a thread pinned to it (the caller's own affinity stays
// as it was), by thread CPU time; about 0.1 s. nullopt when no thread can be pinned there.
std::optional<CpuSpeed> cpu_speed(std::size_t cpu);

// cpu_speed() of each CPU this process may run on, in order, and with more than one of them
// each one's sparse product with all at once.
std::vector<CpuSpeed> allowed_cpu_speeds();

// SparseProbe::run's median time in us on each of `cpus` (in order) while all of them run it
// at once, each on a thread of its own pinned there, started together, each with its own
// probe: nothing is shared but the machine. Timed by the wall clock, kSparseProbeSamples
// samples each: time the host gives another vCPU instead must count. nullopt when a thread
// cannot be pinned.
std::optional<std::vector<double>> sparse_products_at_once(std::span<const std::size_t> cpus);

}  // namespace seatorch::bench
