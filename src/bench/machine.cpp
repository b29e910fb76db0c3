// The CPU's description from /proc/cpuinfo (bench/machine.hpp).
#include "seatorch/bench/machine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <thread>

namespace seatorch::bench {
namespace {

// Enough for the first processor's block on any machine, which is all describe_cpu reads.
constexpr std::size_t kCpuinfoBytes = 64 * 1024;

std::string_view trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

// The value of the first "key : value" line of the first processor's block.
std::optional<std::string_view> field(std::string_view cpuinfo, std::string_view key) {
  while (!cpuinfo.empty()) {
    const auto end = cpuinfo.find('\n');
    const std::string_view line = cpuinfo.substr(0, end);
    if (trimmed(line).empty()) return std::nullopt;  // the blank line that ends the block
    const auto colon = line.find(':');
    if (colon != std::string_view::npos && trimmed(line.substr(0, colon)) == key) {
      return trimmed(line.substr(colon + 1));
    }
    if (end == std::string_view::npos) break;
    cpuinfo.remove_prefix(end + 1);
  }
  return std::nullopt;
}

}  // namespace

std::string describe_cpu(std::string_view cpuinfo, std::size_t logical_cpus) {
  const std::string cpus = fmt::format("{} logical CPU{}", logical_cpus, logical_cpus == 1 ? "" : "s");
  if (const auto name = field(cpuinfo, "model name"); name && !name->empty()) {
    const auto family = field(cpuinfo, "cpu family");
    const auto model = field(cpuinfo, "model");
    if (family && model) return fmt::format("{} (family {}, model {}), {}", *name, *family, *model, cpus);
    return fmt::format("{}, {}", *name, cpus);
  }
  const auto implementer = field(cpuinfo, "CPU implementer");
  const auto part = field(cpuinfo, "CPU part");
  if (implementer && part) return fmt::format("CPU implementer {}, part {}, {}", *implementer, *part, cpus);
  return "an unnamed CPU, " + cpus;
}

const std::string& this_cpu() {
  static const std::string description = [] {
    std::ifstream in("/proc/cpuinfo");
    std::string text;
    if (in) {
      text.resize(kCpuinfoBytes);
      in.read(text.data(), static_cast<std::streamsize>(text.size()));
      text.resize(static_cast<std::size_t>(in.gcount()));
    }
    return describe_cpu(text, std::max(1u, std::thread::hardware_concurrency()));
  }();
  return description;
}

}  // namespace seatorch::bench
