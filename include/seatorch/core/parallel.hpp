// seatorch's threads: one pool of workers that runs one parallel loop at a time.
//
// The pool is sized by set_threads() (the CLI's --threads), else by the SEATORCH_THREADS
// environment variable (read at the first use), else 1: a single thread runs every loop
// inline and starts no worker. A loop is split into `parts` independent pieces; part 0 runs
// on the caller, the others on the workers, part p on thread p % threads(). Callers make
// each part's arithmetic independent of how many threads run them (they split outputs, never
// a sum), so results are bit-identical whatever the thread count (docs/DECISIONS.md).
//
// A loop started inside a part runs inline: one level of parallelism, no oversubscription.
// Workers spin briefly between loops, since a training step starts dozens of short loops,
// then sleep. Deliberately not here: work stealing, task graphs, priorities, affinity.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace seatorch::core {

inline constexpr std::size_t kMaxThreads = 64;

// Makes later loops use `n` threads (the caller's and n - 1 workers). Throws OptionError
// ("threads") when n is 0 or above kMaxThreads. Not to be called from inside a loop.
void set_threads(std::size_t n);

// The number of threads loops use (resolving SEATORCH_THREADS if not done yet; a bad value
// there is an InputError that names the variable).
std::size_t threads();

// Sets the thread count for a scope (a benchmark of one core's work, a test) and restores
// the previous count when the scope ends, however it ends.
class ScopedThreads {
 public:
  explicit ScopedThreads(std::size_t n) : previous_(threads()) { set_threads(n); }
  ~ScopedThreads() { set_threads(previous_); }
  ScopedThreads(const ScopedThreads&) = delete;
  ScopedThreads& operator=(const ScopedThreads&) = delete;

 private:
  std::size_t previous_;
};

// The unit parallel_for() runs: fn(context, part).
using PartFn = void (*)(void* context, std::size_t part);

// Runs fn(context, p) for every p in [0, parts) and returns when all are done. The first
// exception a part throws is rethrown here, after every part has finished.
void run_parts(std::size_t parts, PartFn fn, void* context);

// body(p) for every part p in [0, parts).
template <class Body>
void parallel_for(std::size_t parts, Body&& body) {
  using B = std::remove_reference_t<Body>;
  run_parts(
      parts, [](void* c, std::size_t p) { (*static_cast<B*>(c))(p); }, &body);
}

// Splits [0, n) into at most threads() contiguous ranges whose boundaries are multiples of
// `grain` (and none shorter than `min_size`, so small loops stay on one thread), and calls
// body(begin, end) for each.
template <class Body>
void parallel_ranges(std::size_t n, std::size_t grain, std::size_t min_size, Body&& body) {
  const std::size_t t = threads();
  const std::size_t most = min_size == 0 ? t : (n / min_size == 0 ? 1 : n / min_size);
  const std::size_t parts = t < most ? t : most;
  if (parts <= 1) {
    if (n > 0) body(std::size_t{0}, n);
    return;
  }
  const auto boundary = [&](std::size_t p) {
    const std::size_t b = (p * n / parts + grain - 1) / grain * grain;
    return b < n ? b : n;
  };
  parallel_for(parts, [&](std::size_t p) {
    const std::size_t begin = boundary(p);
    const std::size_t end = boundary(p + 1);
    if (begin < end) body(begin, end);
  });
}

}  // namespace seatorch::core
