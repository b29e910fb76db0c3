// Judging the BLAS core against the CPU, and re-running a command with a fitting one.
#include "seatorch/bench/blas_core.hpp"

#include "seatorch/bench/blas_reference.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>
#include <vector>

namespace seatorch::bench {
namespace {

// Set in the environment of a command re-run by prefer_fitting_blas(), so that it never
// re-runs twice.
constexpr const char* kRerunMarker = "SEATORCH_BLAS_RERUN";

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// Each tier's name and the OPENBLAS_CORETYPE that runs its kernels, in VectorIsa's order.
struct Tier {
  std::string_view name;
  std::string_view fitting_core;
};
constexpr std::array<Tier, 4> kTiers{{
    {"SSE", "Prescott"},
    {"AVX", "Sandybridge"},
    {"AVX2", "Haswell"},
    {"AVX-512", "SkylakeX"},
}};

const Tier& tier(VectorIsa isa) { return kTiers[static_cast<std::size_t>(isa)]; }

}  // namespace

std::string_view isa_name(VectorIsa isa) { return tier(isa).name; }

std::optional<VectorIsa> openblas_core_isa(std::string_view core) {
  // OpenBLAS 0.3.21's x86-64 DYNAMIC_ARCH cores, by the kernels they run (Zen runs Haswell's).
  static const std::array<std::pair<std::string_view, VectorIsa>, 26> kCores{{
      {"katmai", VectorIsa::kSse},        {"coppermine", VectorIsa::kSse},
      {"northwood", VectorIsa::kSse},     {"prescott", VectorIsa::kSse},
      {"banias", VectorIsa::kSse},        {"yonah", VectorIsa::kSse},
      {"core2", VectorIsa::kSse},         {"penryn", VectorIsa::kSse},
      {"dunnington", VectorIsa::kSse},    {"nehalem", VectorIsa::kSse},
      {"atom", VectorIsa::kSse},          {"athlon", VectorIsa::kSse},
      {"opteron", VectorIsa::kSse},       {"opteron_sse3", VectorIsa::kSse},
      {"barcelona", VectorIsa::kSse},     {"nano", VectorIsa::kSse},
      {"sandybridge", VectorIsa::kAvx},   {"bulldozer", VectorIsa::kAvx},
      {"piledriver", VectorIsa::kAvx},    {"steamroller", VectorIsa::kAvx},
      {"excavator", VectorIsa::kAvx},     {"haswell", VectorIsa::kAvx2},
      {"zen", VectorIsa::kAvx2},          {"skylakex", VectorIsa::kAvx512},
      {"cooperlake", VectorIsa::kAvx512}, {"sapphirerapids", VectorIsa::kAvx512},
  }};
  const std::string name = lower(core);
  for (const auto& [known, isa] : kCores) {
    if (name == known) return isa;
  }
  return std::nullopt;
}

VectorIsa cpu_isa() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  // OpenBLAS's SkylakeX kernels need F, BW, VL and DQ.
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq")) {
    return VectorIsa::kAvx512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return VectorIsa::kAvx2;
  if (__builtin_cpu_supports("avx")) return VectorIsa::kAvx;
#endif
  return VectorIsa::kSse;
}

BlasCore judge_blas_core(std::string_view core, VectorIsa cpu) {
  BlasCore b;
  b.name = std::string(core);
  b.isa = core.empty() ? std::nullopt : openblas_core_isa(core);
  b.cpu = cpu;
  if (b.isa && *b.isa < cpu) b.fitting = std::string(tier(cpu).fitting_core);
  return b;
}

BlasCore blas_core() { return judge_blas_core(blas_core_name(), cpu_isa()); }

std::string BlasCore::unfair_reason() const {
  if (fair()) return {};
  const char* set = std::getenv("OPENBLAS_CORETYPE");
  return fmt::format("OpenBLAS runs its {} kernels ({}) on this {} CPU{}, so no ratio against it is shown; run with "
                     "OPENBLAS_CORETYPE={} for the kernels of this CPU's ISA",
                     name, isa_name(*isa), isa_name(cpu),
                     set != nullptr ? fmt::format(" (OPENBLAS_CORETYPE={} is set)", set) : std::string(), fitting);
}

void prefer_fitting_blas(std::string& note) {
  const BlasCore core = blas_core();
  if (core.fair()) return;
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr || std::getenv(kRerunMarker) != nullptr) {
    note = core.unfair_reason();
    return;
  }
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<char> raw{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::vector<char*> argv;
  for (std::size_t start = 0; start < raw.size(); start += std::strlen(raw.data() + start) + 1) {
    argv.push_back(raw.data() + start);
  }
  argv.push_back(nullptr);
  ::setenv("OPENBLAS_CORETYPE", core.fitting.c_str(), 1);
  ::setenv(kRerunMarker, core.name.c_str(), 1);
  ::execv("/proc/self/exe", argv.data());
  // Only reached when the re-run could not start.
  note = core.unfair_reason() + fmt::format(" (re-running with it failed: {})", std::strerror(errno));
}

std::string blas_rerun_from() {
  const char* core = std::getenv(kRerunMarker);
  return core != nullptr ? std::string(core) : std::string();
}

}  // namespace seatorch::bench
