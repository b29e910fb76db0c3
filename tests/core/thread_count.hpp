// Sets the thread count for one test and restores the previous one when it ends, so a
// failing test cannot leave the rest of the suite on more threads.
#pragma once

#include "seatorch/core/parallel.hpp"

#include <cstddef>

namespace seatorch::test {

class ThreadCount {
 public:
  explicit ThreadCount(std::size_t n) : previous_(core::threads()) { core::set_threads(n); }
  ~ThreadCount() { core::set_threads(previous_); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;

 private:
  std::size_t previous_;
};

}  // namespace seatorch::test
