// seatorch's threads: one pool of workers that runs one parallel loop at a time.
//
// The pool is sized by set_threads() (the CLI's --threads), else by the SEATORCH_THREADS
// environment variable (read at the first use), else 1: a single thread runs every loop
// inline and starts no worker. A loop is split into `parts` independent pieces; part 0 runs
// on the caller, the others on the workers, part p on thread p % threads(). Callers make
// each part's arithmetic independent of how many threads run them (they split outputs, never
// a sum), so results are bit-identical whatever the thread count (docs/DECISIONS.md).
//
// A ranged loop (parallel_ranges) gives each thread a share of the range that follows how
// fast each thread ran the previous ranged loops: on cores of unequal speed (a virtual CPU
// the host takes time from, a hybrid CPU's efficiency cores) an even split would leave the
// faster thread waiting at every join. The split moves, the arithmetic does not: each output
// element is computed by the same code in the same order wherever the boundary falls.
//
// A loop started inside a part runs inline: one level of parallelism, no oversubscription.
// Workers spin briefly between loops, since a training step starts dozens of short loops,
// then sleep. While a worker waits it may run items of work offered for idle time
// (offer_idle: the next batch's augmentation, while the caller runs the serial code of a
// step). Deliberately not here: work stealing, task graphs, priorities, affinity.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>
#include <vector>

namespace seatorch::core {

inline constexpr std::size_t kMaxThreads = 64;

// Makes later loops use `n` threads (the caller's and n - 1 workers). Throws OptionError
// ("threads") when n is 0 or above kMaxThreads. Not to be called from inside a loop.
void set_threads(std::size_t n);

// The number of threads loops use (resolving SEATORCH_THREADS if not done yet; a bad value
// there is an InputError that names the variable).
std::size_t threads();

// The threads a loop started here would run on: threads(), but 1 inside a part (or an idle
// item), where every loop runs inline. Work made once per thread (kernels::sparse_copies)
// sizes itself by this, so that a nested loop does not make the other threads' share too.
std::size_t loop_threads();

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

// The unit parallel_ranges() runs: fn(context, part, begin, end), part < threads().
using RangeFn = void (*)(void* context, std::size_t part, std::size_t begin, std::size_t end);

// Splits [0, n) into at most threads() contiguous ranges whose boundaries are multiples of
// `grain` (and no more ranges than n / min_size, so small loops stay on one thread), sized by
// the threads' shares, and runs fn(context, part, begin, end) for each non-empty one.
void run_ranges(std::size_t n, std::size_t grain, std::size_t min_size, RangeFn fn, void* context);

// body(begin, end) for each range of run_ranges(), or body(part, begin, end) for a body that
// keeps something per part (a scratch buffer). A loop that runs inline (inside a part, or while
// another thread's loop holds the pool) is the one part 0, on whichever thread called it: state
// kept per part must belong to that call, never be shared with another thread's loop.
template <class Body>
void parallel_ranges(std::size_t n, std::size_t grain, std::size_t min_size, Body&& body) {
  using B = std::remove_reference_t<Body>;
  run_ranges(
      n, grain, min_size,
      [](void* c, std::size_t part, std::size_t begin, std::size_t end) {
        if constexpr (std::is_invocable_v<B&, std::size_t, std::size_t, std::size_t>) {
          (*static_cast<B*>(c))(part, begin, end);
        } else {
          (*static_cast<B*>(c))(begin, end);
        }
      },
      &body);
}

// The unit of idle work: fn(context, item, thread), on thread `thread` < threads().
using ItemFn = void (*)(void* context, std::size_t item, std::size_t thread);

// Offers items [0, n) of fn to the workers for the time they would otherwise wait for the
// next loop: a worker that has waited a little after a loop (a gap in which the caller runs
// code of its own, not the moment between two loops) takes the next item, runs it, and
// looks for its next loop again; so does the caller waiting for a loop's last part. A
// worker that has gone to sleep (no loop for a while) does not wake for an offer. The items
// must be independent, each writing only its own outputs, so that which thread runs one,
// and when, changes nothing. Nothing runs them with one thread. One offer at a time (a
// second is a std::logic_error); context must stay valid until withdraw_idle().
void offer_idle(std::size_t n, ItemFn fn, void* context);

// Ends the offer: no worker takes another item. Returns how many the workers took (items
// [0, taken)), once every one of them is done, for the caller to run the rest; rethrows the
// first exception one of them threw. 0 when nothing was offered.
std::size_t withdraw_idle();

// Each thread's share of a ranged loop split threads() ways, thread 0 (the caller) first;
// they sum to 1.
std::vector<double> shares();

// Fixes the shares (one per thread, each at least 0, summing to a positive total; they are
// scaled to sum to 1) until release_shares() or set_threads(): a test of uneven splits, or a
// measurement that wants the even split. Throws std::invalid_argument for a count other than
// threads(), a negative share, or shares that sum to 0.
void fix_shares(std::span<const double> shares);

// Lets the shares follow the threads' measured speed again, starting from an even split.
void release_shares();

// fix_shares() for a scope.
class ScopedShares {
 public:
  explicit ScopedShares(std::span<const double> shares) { fix_shares(shares); }
  ~ScopedShares() { release_shares(); }
  ScopedShares(const ScopedShares&) = delete;
  ScopedShares& operator=(const ScopedShares&) = delete;
};

}  // namespace seatorch::core
