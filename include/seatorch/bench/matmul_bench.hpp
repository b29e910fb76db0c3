// `seatorch bench matmul`: the throughput of every matmul kernel on this CPU, side by side
// with the machine's measured FMA peak and, when the build has one, the system BLAS.
//
// A problem is C (m, n) = op(A) (m, k) * op(B) (k, n), written "MxNxK" with an optional
// form ":nn", ":tn", ":nt" or ":tt" (t: that operand is stored transposed, as the training
// backward passes use it). Every kernel and the BLAS run on the same operands in the same
// process, their samples taken in turn (time_interleaved); figures are GFLOPS = 2*m*n*k /
// median seconds.
// Deliberately not here: printing (the CLI formats the table and the JSON).
#pragma once

#include "seatorch/bench/cpu_distance.hpp"
#include "seatorch/bench/fma_peak.hpp"
#include "seatorch/bench/timing.hpp"
#include "seatorch/kernels/matmul.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::bench {

struct MatmulProblem {
  kernels::MatmulShape shape;
  kernels::Transpose ta = kernels::Transpose::kNo;
  kernels::Transpose tb = kernels::Transpose::kNo;
};

// "nn", "tn", "nt" or "tt".
std::string form_name(const MatmulProblem& problem);

// "MxNxK" or "MxNxK:FORM" (sizes 1..16384). Throws InputError naming the text and the
// expected syntax.
MatmulProblem parse_matmul_problem(std::string_view text);

// The square sizes run by default: 64, 128, 256, 512, 1024.
std::vector<std::size_t> default_matmul_sizes();

// One square problem per size (nn). Throws InputError for a size outside 1..16384.
std::vector<MatmulProblem> square_matmul_problems(const std::vector<std::size_t>& sizes);

// The 784-128-10 MLP's products at batch 64 in the forms training runs them (tensor::linear,
// weights held as Wᵀ (in, out)): both layers forward X·Wᵀ (nn), their weight gradients Xᵀ·dY
// (tn) and the hidden layer's input gradient dY·W (nt); the input's gradient is not computed.
// Training runs the first layer's two sparse (bench train's products), which this times dense.
std::vector<MatmulProblem> mlp_matmul_problems();

struct MatmulBenchOptions {
  std::vector<MatmulProblem> problems;
  std::vector<std::string> kernels;  // kernel names; empty: every available kernel
  std::size_t reps = 5;              // timed samples per figure, interleaved (median)
  double min_sample_seconds = 0.02;
  // On one thread the thread's CPU time is the honest figure on a shared machine (see
  // TimingClock), and equals wall time on an idle one. On several (core::threads() > 1) it
  // would count one thread's share only: the bench then needs kWall.
  TimingClock clock = TimingClock::kThreadCpu;
  bool blas = true;  // also time cblas_sgemm when the build has a BLAS
};

struct MatmulBenchRow {
  std::string kernel;  // a kernel name, or "blas"
  MatmulProblem problem;
  double seconds = 0.0;  // median per call
  double gflops = 0.0;
  std::optional<double> pct_peak;       // percent of the FMA peak (when measured)
  std::optional<double> ratio_to_blas;  // gflops / BLAS gflops on the same problem (kernels only)
};

struct MatmulBenchReport {
  std::string cpu;  // this_cpu(): what the figures were measured on
  TimingClock clock = TimingClock::kThreadCpu;
  std::size_t threads = 1;  // core::threads() during the run
  // Of the cores `threads` use: one core's probe times their number, the higher of a probe
  // before the products and one after (higher_probe).
  std::optional<FmaPeak> peak;
  std::optional<CpuPlacement> cpus;  // with two threads or more, around the timed products
  std::string blas;                  // blas_name(), empty when not run
  // Why no row carries a ratio to the BLAS although it ran: its core is below this CPU's ISA
  // (BlasCore::unfair_reason()); empty when the ratios are fair.
  std::string blas_unfair;
  std::vector<MatmulBenchRow> rows;  // per problem: the kernels in the order given, then "blas"
};

// Throws OptionError ("clock") when `clock` cannot time core::threads() threads: a thread's
// CPU time counts only its own share.
void check_clock(TimingClock clock);

// Throws InputError for an unknown or unavailable kernel name (listing the available ones)
// and for an empty problem list. `progress` sees each row as soon as it is measured, before
// its pct_peak is known (the peak's second probe comes after the last product).
MatmulBenchReport run_matmul_bench(const MatmulBenchOptions& options,
                                   const std::function<void(const MatmulBenchRow&)>& progress = {});

}  // namespace seatorch::bench
