// The CPUs this process may use, against the kernel's own list in /proc/self/status, and
// pinning a thread to one of them.
#include "seatorch/bench/cpu_set.hpp"

#include <catch2/catch.hpp>

#include <sched.h>

#include <cstddef>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace b = seatorch::bench;

namespace {

// The "Cpus_allowed_list:" line of /proc/self/status ("0-3,6"), expanded; empty where absent.
std::vector<std::size_t> cpus_allowed_list() {
  std::ifstream in("/proc/self/status");
  std::string line;
  std::vector<std::size_t> cpus;
  while (std::getline(in, line)) {
    const std::string key = "Cpus_allowed_list:";
    if (line.rfind(key, 0) != 0) continue;
    std::stringstream ranges(line.substr(key.size()));
    std::string range;
    while (std::getline(ranges, range, ',')) {
      const std::size_t dash = range.find('-');
      const std::size_t first = std::stoul(range.substr(0, dash));
      const std::size_t last = dash == std::string::npos ? first : std::stoul(range.substr(dash + 1));
      for (std::size_t cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
    }
  }
  return cpus;
}

}  // namespace

TEST_CASE("allowed_cpus lists the CPUs the kernel says this process may use", "[bench]") {
  const std::vector<std::size_t> expected = cpus_allowed_list();
  if (expected.empty()) {
    WARN("no Cpus_allowed_list in /proc/self/status: nothing to compare with");
    return;
  }
  CHECK(b::allowed_cpus() == expected);
}

TEST_CASE("pin_this_thread keeps a thread on the CPU asked for, and refuses one it cannot use", "[bench]") {
  const std::vector<std::size_t> cpus = b::allowed_cpus();
  REQUIRE_FALSE(cpus.empty());
  for (const std::size_t cpu : cpus) {
    bool pinned = false;
    int ran_on = -1;
    std::jthread([&] {
      pinned = b::pin_this_thread(cpu);
      ran_on = sched_getcpu();
    }).join();
    INFO("CPU " << cpu);
    CHECK(pinned);
    CHECK(ran_on == static_cast<int>(cpu));
  }
  bool pinned = true;
  std::jthread([&] { pinned = b::pin_this_thread(100000); }).join();  // past any machine's mask
  CHECK_FALSE(pinned);
}
