// Runs the real `seatorch` binary from a test: spawn it with arguments, read its output
// (stdout and stderr merged) line by line, send it a signal, and collect its exit status.
//
// Every wait has a deadline, so a child that hangs fails the test instead of hanging it (the
// child is then killed). Deliberately not here: stdin (nothing the tests run reads it) and
// environments other than the test's own.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace seatorch::test {

// The seatorch binary this test suite was built with.
std::string seatorch_binary();

class ChildProcess {
 public:
  // Starts `program` with `args` (argv[1...]).
  ChildProcess(const std::string& program, const std::vector<std::string>& args);
  ~ChildProcess();  // kills and reaps a child still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Reads output until a line contains `needle`; false at end of output or after `timeout`.
  bool wait_for_line(std::string_view needle, std::chrono::milliseconds timeout);
  void send_signal(int signal);
  // Reads the rest of the output and reaps the child: its exit code, 128 + the signal's
  // number when a signal ended it, or -1 after `timeout` (the child is then killed).
  int finish(std::chrono::milliseconds timeout);

  // Everything read so far.
  [[nodiscard]] const std::string& output() const { return output_; }

 private:
  // Reads what is available within `timeout`; false at end of output or timeout.
  bool read_some(std::chrono::steady_clock::time_point deadline);

  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::string output_;
  std::size_t scanned_ = 0;  // output_ before this offset holds no unmatched full line
};

// Runs to completion: {exit code, output}.
struct RunResult {
  int exit_code;
  std::string output;
};
RunResult run_seatorch(const std::vector<std::string>& args,
                       std::chrono::milliseconds timeout = std::chrono::seconds(120));

}  // namespace seatorch::test
