// Matmul throughput of every kernel, the FMA peak and the BLAS (see matmul_bench.hpp).
#include "seatorch/bench/matmul_bench.hpp"

#include "seatorch/bench/blas_core.hpp"
#include "seatorch/bench/blas_reference.hpp"
#include "seatorch/bench/machine.hpp"
#include "seatorch/bench/timing.hpp"
#include "seatorch/core/error.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/core/rng.hpp"
#include "seatorch/kernels/kernel_registry.hpp"
#include "seatorch/tensor/tensor.hpp"

#include <charconv>

namespace seatorch::bench {
namespace {

using kernels::Transpose;

// Larger operands are more likely a typo than a benchmark (16384^3 takes a minute).
constexpr std::size_t kMaxDimension = 16384;
constexpr std::string_view kShapeSyntax =
    "expected MxNxK or MxNxK:FORM with sizes 1..16384 and FORM one of nn, tn, nt, tt (e.g. 128x784x64:tn)";

std::optional<std::size_t> parse_dimension(std::string_view text) {
  std::size_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (value == 0 || value > kMaxDimension) return std::nullopt;
  return value;
}

std::optional<MatmulProblem> parse_problem(std::string_view text) {
  MatmulProblem problem;
  if (const std::size_t colon = text.find(':'); colon != std::string_view::npos) {
    const std::string_view form = text.substr(colon + 1);
    if (form.size() != 2 || (form[0] != 'n' && form[0] != 't') || (form[1] != 'n' && form[1] != 't')) {
      return std::nullopt;
    }
    problem.ta = Transpose{form[0] == 't'};
    problem.tb = Transpose{form[1] == 't'};
    text = text.substr(0, colon);
  }
  std::size_t* dims[] = {&problem.shape.m, &problem.shape.n, &problem.shape.k};
  for (std::size_t d = 0; d < 3; ++d) {
    const std::size_t x = text.find('x');
    if ((d < 2) == (x == std::string_view::npos)) return std::nullopt;  // exactly two 'x'
    const std::optional<std::size_t> value = parse_dimension(text.substr(0, x));
    if (!value) return std::nullopt;
    *dims[d] = *value;
    text = d < 2 ? text.substr(x + 1) : std::string_view{};
  }
  return problem;
}

MatmulProblem square(std::size_t size) {
  if (size == 0 || size > kMaxDimension) {
    throw core::input_error("matmul size {}: expected a size in 1..{}", size, kMaxDimension);
  }
  return {{size, size, size}};
}

// Operands for one problem, stored as its form says, contiguous rows, in tensors: 64-byte
// aligned, as training hands every operand to the kernels. In std::vectors they started 16
// bytes past a cache line, so half of the kernels' 64-byte loads of B straddled two lines
// (on the Xeon 128x64x512:nn ran at 157 GFLOPS against 179-191 aligned).
struct Operands {
  tensor::Tensor a;  // (k, m) when ta, else (m, k)
  tensor::Tensor b;  // (n, k) when tb, else (k, n)
  tensor::Tensor c;  // (m, n)
  kernels::MatmulArgs args;
};

tensor::Tensor random_matrix(std::size_t rows, std::size_t cols, core::Rng& rng) {
  tensor::Tensor t = tensor::Tensor::empty({rows, cols});
  float* x = t.data<float>();
  for (std::size_t i = 0; i < rows * cols; ++i) x[i] = static_cast<float>(rng.uniform(-1.0, 1.0));
  return t;
}

Operands make_operands(const MatmulProblem& problem, core::Rng& rng) {
  const auto [m, n, k] = problem.shape;
  Operands ops{random_matrix(m, k, rng), random_matrix(k, n, rng), tensor::Tensor::zeros({m, n}), {}};
  ops.args = {problem.shape, ops.a.data<float>(), problem.ta == Transpose::kYes ? m : k,
              problem.ta,    ops.b.data<float>(), problem.tb == Transpose::kYes ? k : n,
              problem.tb,    ops.c.data<float>(), n,
              false};
  return ops;
}

}  // namespace

std::string form_name(const MatmulProblem& problem) {
  return {problem.ta == Transpose::kYes ? 't' : 'n', problem.tb == Transpose::kYes ? 't' : 'n'};
}

MatmulProblem parse_matmul_problem(std::string_view text) {
  if (const std::optional<MatmulProblem> problem = parse_problem(text)) return *problem;
  throw core::input_error("matmul shape '{}': {}", text, kShapeSyntax);
}

std::vector<std::size_t> default_matmul_sizes() { return {64, 128, 256, 512, 1024}; }

std::vector<MatmulProblem> square_matmul_problems(const std::vector<std::size_t>& sizes) {
  std::vector<MatmulProblem> problems;
  for (std::size_t size : sizes) problems.push_back(square(size));
  return problems;
}

std::vector<MatmulProblem> mlp_matmul_problems() {
  constexpr std::size_t kBatch = 64, kIn = 784, kHidden = 128, kOut = 10;
  const Transpose no = Transpose::kNo, yes = Transpose::kYes;
  // The weights are held as Wᵀ (in, out), as nn::Linear holds them; the input's gradient is
  // never needed.
  return {
      {{kBatch, kHidden, kIn}, no, no},    // H = X * W1ᵀ           (64, 784) * (784, 128)
      {{kBatch, kOut, kHidden}, no, no},   // Y = H * W2ᵀ           (64, 128) * (128, 10)
      {{kIn, kHidden, kBatch}, yes, no},   // dW1ᵀ = Xᵀ * dH        (64, 784)ᵀ * (64, 128)
      {{kHidden, kOut, kBatch}, yes, no},  // dW2ᵀ = Hᵀ * dY        (64, 128)ᵀ * (64, 10)
      {{kBatch, kHidden, kOut}, no, yes},  // dH = dY * W2          (64, 10) * (128, 10)ᵀ
  };
}

void check_clock(TimingClock clock) {
  if (core::threads() > 1 && clock == TimingClock::kThreadCpu) {
    throw core::option_error("clock",
                             "a thread's CPU time counts only its own share of {} threads' work; "
                             "time them with the wall clock",
                             core::threads());
  }
}

MatmulBenchReport run_matmul_bench(const MatmulBenchOptions& options,
                                   const std::function<void(const MatmulBenchRow&)>& progress) {
  if (options.problems.empty())
    throw core::option_error("matmul shapes", "the matmul bench has no shapes to run: give sizes or shapes");
  std::vector<const kernels::KernelInfo*> chosen;
  if (options.kernels.empty()) {
    for (const kernels::KernelInfo& kernel : kernels::available_kernels()) chosen.push_back(&kernel);
  } else {
    for (const std::string& name : options.kernels) chosen.push_back(&kernels::require_kernel(name, ""));
  }

  MatmulBenchReport report;
  report.cpu = this_cpu();
  report.clock = options.clock;
  check_clock(options.clock);
  report.threads = core::threads();
  const std::optional<FmaPeak> peak_before = measure_fma_peak(0.05, options.clock, report.threads);
  const PlacementWatch placement(report.threads);
  if (options.blas) report.blas = blas_name();
  if (!report.blas.empty()) report.blas_unfair = blas_core().unfair_reason();
  const TimingOptions timing{options.reps, options.min_sample_seconds, options.clock};
  core::Rng rng(2024);

  auto emit = [&](MatmulBenchRow row) {
    if (progress) progress(row);
    report.rows.push_back(std::move(row));
  };
  for (const MatmulProblem& problem : options.problems) {
    Operands ops = make_operands(problem, rng);
    const auto [m, n, k] = problem.shape;
    const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);

    // Every engine's samples in turn (time_interleaved), BLAS first. Each kernel runs
    // through matmul_with, which splits the product across threads as training does.
    std::vector<std::string> names;
    std::vector<std::function<void()>> works;
    const bool with_blas = !report.blas.empty();
    if (with_blas) {
      names.emplace_back("blas");
      works.emplace_back([&] { blas_sgemm(ops.args); });
    }
    for (const kernels::KernelInfo* kernel : chosen) {
      names.emplace_back(kernel->name);
      works.emplace_back([&ops, kernel] { kernels::matmul_with(kernel->name, ops.args); });
    }
    const std::vector<Timing> timings = time_interleaved(works, timing);
    const auto row = [&](std::size_t w) {
      return MatmulBenchRow{names[w], problem, timings[w].seconds, flops / timings[w].seconds / 1e9, {}, {}};
    };
    // The kernels' rows first, each with its ratio to the BLAS (works[0]) when that is fair.
    const bool fair = with_blas && report.blas_unfair.empty();
    for (std::size_t w = with_blas ? 1 : 0; w < works.size(); ++w) {
      MatmulBenchRow kernel_row = row(w);
      if (fair) kernel_row.ratio_to_blas = kernel_row.gflops / row(0).gflops;
      emit(std::move(kernel_row));
    }
    if (with_blas) emit(row(0));
  }
  report.cpus = placement.finish();
  report.peak = higher_probe(peak_before, measure_fma_peak(0.05, options.clock, report.threads), &FmaPeak::gflops);
  if (report.peak) {
    for (MatmulBenchRow& row : report.rows) row.pct_peak = 100.0 * row.gflops / report.peak->gflops;
  }
  return report;
}

}  // namespace seatorch::bench
