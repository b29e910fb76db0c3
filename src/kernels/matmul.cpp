// matmul(): the dispatch point, and choosing a kernel by name with user-facing errors.
// The table of kernels and the CPU feature checks are in kernel_registry.cpp.
#include "seatorch/kernels/matmul.hpp"

#include "seatorch/core/error.hpp"
#include "seatorch/kernels/kernel_registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <cstdlib>

namespace seatorch::kernels {
namespace {

// Null until the first matmul() or select_kernel(); then the kernel in use.
std::atomic<const KernelInfo*> g_selected{nullptr};

const KernelInfo& selected() {
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

}  // namespace

void matmul(const MatmulArgs& args) { selected().matmul(args); }

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

std::string_view selected_kernel() { return selected().name; }

void matmul_with(std::string_view name, const MatmulArgs& args) { require_kernel(name, "matmul_with").matmul(args); }

}  // namespace seatorch::kernels
