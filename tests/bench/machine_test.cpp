// The CPU's description against /proc/cpuinfo texts of the machines seatorch has run on.
#include "seatorch/bench/machine.hpp"

#include <catch2/catch.hpp>

namespace b = seatorch::bench;

TEST_CASE("describe_cpu names the model, and on x86 its family and model numbers", "[bench]") {
  // The first processor's block is read; the second block's fields must not leak in.
  const char* amd =
      "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC\n"
      "stepping\t: 1\n\nprocessor\t: 1\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"
      "model name\t: Other\n";
  CHECK(b::describe_cpu(amd, 2) == "AMD EPYC (family 25, model 17), 2 logical CPUs");
  const char* intel = "processor : 0\r\nvendor_id : GenuineIntel\r\ncpu family : 6\r\nmodel : 207\r\n"
                      "model name : Intel(R) Xeon(R) Platinum 8581C CPU @ 2.30GHz\r\n";
  CHECK(b::describe_cpu(intel, 1) ==
        "Intel(R) Xeon(R) Platinum 8581C CPU @ 2.30GHz (family 6, model 207), 1 logical CPU");
  // A model name without the numbers (some hypervisors) is given as it is.
  CHECK(b::describe_cpu("model name\t: Some CPU\n", 4) == "Some CPU, 4 logical CPUs");
}

TEST_CASE("describe_cpu falls back to AArch64's implementer and part, then to saying it has no name", "[bench]") {
  const char* arm =
      "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU architecture: 8\n"
      "CPU variant\t: 0x1\nCPU part\t: 0xd0c\n";
  CHECK(b::describe_cpu(arm, 8) == "CPU implementer 0x41, part 0xd0c, 8 logical CPUs");
  CHECK(b::describe_cpu("", 2) == "an unnamed CPU, 2 logical CPUs");
  CHECK(b::describe_cpu("model name\t:\n", 2) == "an unnamed CPU, 2 logical CPUs");
}
