// matmul(): the dispatch point, its split across threads, and choosing a kernel by name
// with user-facing errors. The table of kernels and the CPU feature checks are in
// kernel_registry.cpp. Deliberately not here: any kernel's loops (gemm_driver.hpp and the ISA
// files).
#include "seatorch/kernels/matmul.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/core/parallel.hpp"
#include "seatorch/kernels/kernel_registry.hpp"
#include "seatorch/kernels/product_log.hpp"
#include "thread_split.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <cassert>
#include <cstdlib>

namespace seatorch::kernels {
namespace {

// Null until the first matmul() or select_kernel(); then the kernel in use.
std::atomic<const KernelInfo*> g_selected{nullptr};

const KernelInfo& selected_info() {
  const KernelInfo* kernel = g_selected.load(std::memory_order_acquire);
  if (kernel == nullptr) {
    const char* env = std::getenv("SEATORCH_KERNEL");
    kernel = env != nullptr && *env != '\0' ? &require_kernel(env, "SEATORCH_KERNEL") : &default_kernel();
    // Another thread may have chosen meanwhile (select_kernel): its choice wins.
    const KernelInfo* expected = nullptr;
    if (!g_selected.compare_exchange_strong(expected, kernel, std::memory_order_acq_rel)) kernel = expected;
  }
  return *kernel;
}

// The block of C at rows [i0, i1) and columns [j0, j1), as a product of its own.
MatmulArgs block(const MatmulArgs& args, std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1) {
  MatmulArgs b = args;
  b.shape = {i1 - i0, j1 - j0, args.shape.k};
  b.a += args.ta == Transpose::kNo ? i0 * args.lda : i0;
  b.b += args.tb == Transpose::kNo ? j0 : j0 * args.ldb;
  b.c += i0 * args.ldc + j0;
  return b;
}

// Runs `kernel` on disjoint blocks of C, one per thread. Each block takes the whole depth k,
// and every kernel sums an element's products in the same order whatever the block's size,
// so the result is bit-identical to one call (tests/kernels/matmul_threads_test.cpp).
// The splits follow W where they can: the forward X·Wᵀ splits by columns when C is wide
// (rows of W; so each thread reads only its columns of Wᵀ), and the weight gradient of W held
// as Wᵀ (nn::Linear), Xᵀ·dY with A stored transposed, by rows, which are rows of Wᵀ, as
// sparse_matmul_tn splits the first layer's and the optimizer splits the weight
// (train/optimizer.cpp), so a row's gradient and update share a core (DECISIONS 42 and 84).
// Anything else splits by columns when wide.
void run_split(const KernelInfo& kernel, const MatmulArgs& args, const Epilogue& epilogue = {}) {
  const auto [m, n, k] = args.shape;
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (flops < kParallelFlops || core::threads() == 1) {
    kernel.matmul(args, epilogue);
  } else if (args.ta == Transpose::kNo && n >= 2 * kColumnGrain) {
    core::parallel_ranges(n, kColumnGrain, kColumnGrain, [&](std::size_t j0, std::size_t j1) {
      kernel.matmul(block(args, 0, m, j0, j1), epilogue.from_column(j0));
    });
  } else {
    core::parallel_ranges(m, kRowGrain, kRowGrain,
                          [&](std::size_t i0, std::size_t i1) { kernel.matmul(block(args, i0, i1, 0, n), epilogue); });
  }
}

// run_split, timed into the thread's recording log when there is one (product_log.hpp).
void run_logged(const MatmulArgs& args, const Epilogue& epilogue) {
  run_recorded([&] { run_split(selected_info(), args, epilogue); },
               [&](ProductLog& log, double seconds) { log.add(args, epilogue, seconds); });
}

}  // namespace

void matmul(const MatmulArgs& args) { run_logged(args, {}); }

void matmul(const MatmulArgs& args, const Epilogue& epilogue) {
  assert(!args.accumulate);
  run_logged(args, epilogue);
}

const KernelInfo& require_kernel(std::string_view name, std::string_view origin) {
  if (const KernelInfo* kernel = find_kernel(name)) return *kernel;
  const std::string problem =
      fmt::format("no matmul kernel '{}' on this CPU; choose one of: {}", name, fmt::join(kernel_names(), ", "));
  if (origin.empty()) throw core::OptionError("matmul kernel", problem);
  throw core::input_error("{}: {}", origin, problem);
}

std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (const KernelInfo& kernel : available_kernels()) names.emplace_back(kernel.name);
  return names;
}

void select_kernel(std::string_view name) { g_selected.store(&require_kernel(name, ""), std::memory_order_release); }

std::string_view selected_kernel() { return selected_info().name; }

const KernelInfo& selected_kernel_info() { return selected_info(); }

void matmul_with(std::string_view name, const MatmulArgs& args) {
  run_split(require_kernel(name, "matmul_with"), args);
}

}  // namespace seatorch::kernels
