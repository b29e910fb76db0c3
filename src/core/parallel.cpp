// The worker pool behind parallel_for and parallel_ranges (see parallel.hpp): std::jthread
// workers woken by a generation counter, spinning a little before they sleep on it; the
// threads' shares of a ranged loop, moved after each one towards the speeds it measured; and
// the one offer of idle work (offer_idle), whose items a waiting thread claims one at a time.
#include "seatorch/core/parallel.hpp"

#include "seatorch/core/error.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace seatorch::core {
namespace {

// How long a thread polls before it sleeps. Waking a sleeping thread costs tens of
// microseconds (more on a virtual machine), as much as a small loop itself; a training
// step's loops come closer together than this, so its workers never sleep mid-step. Between
// rounds of polls it yields: when more threads than cores want to run (two training runs at
// once), a poller that kept its core would starve the very thread it waits for (an epoch took
// ten times as long). The first round is long, about as long as the yield (in a Zen 5 guest,
// 4096 polls of a cached line 1.2 us, sched_yield 1.2 us): most waits end within it, where a
// thread that yielded after a short round would see the line move a microsecond late (an empty
// two-thread loop 2.4 us against 1.3 us, the CPUs far apart); after it the rounds are short,
// so that a thread sharing its CPU does not hold it long (DECISIONS 93).
constexpr auto kSpin = std::chrono::microseconds(500);
constexpr int kFirstPolls = 4096;
constexpr int kPollsPerRound = 256;

// How long a worker polls for its next loop before it takes an item of idle work, counted
// from the end of its first round of polls (kFirstPolls, about 1.2 us on Zen 5; wait_filling
// reads no clock before it), so some 3 us in all. Most gaps between two loops last 1-2 us
// (the caller returning from one loop and starting the next); an item (an image's
// augmentation, about 1.5 us) taken there would delay the loop it waits for. The gaps worth
// filling are the caller's serial code, 10-50 us (on Zen 4, two threads, the default recipe:
// about 60 us a step; DECISIONS 66).
constexpr auto kIdleAfter = std::chrono::microseconds(2);

// How fast the shares follow the threads' speeds: each ranged loop moves them this fraction
// of the way to the split that would have made its own parts end together. One loop's times
// are noisy (an interrupt costs as much as a small part), a training step runs about ten
// ranged loops, and a slowed virtual CPU stays slow for seconds.
constexpr double kShareStep = 1.0 / 16;
// A share stays within these multiples of the even one, so that a thread stalled for one loop
// (the host took its CPU) does not lose its rows, and the cache lines they bring, for long.
constexpr double kMinShare = 0.5;
constexpr double kMaxShare = 1.5;

using Clock = std::chrono::steady_clock;

thread_local bool t_inside_part = false;

// What the caller publishes to start a loop, in one cache line: a worker that sees the
// generation move has, in the line it fetched to see it, everything it needs to start (with
// two threads; a third thread's bounds are in the next line). On a virtual machine whose two
// CPUs sit on different dies every line the worker fetches from the caller's cache costs a
// few hundred nanoseconds, one after another, and a training step starts some twenty loops
// (DECISIONS 93).
struct alignas(64) Announcement {
  std::atomic<std::uint64_t> generation{0};
  PartFn part_fn = nullptr;    // a loop of parts, or
  RangeFn range_fn = nullptr;  // a ranged loop: part p is [p == 0 ? 0 : ends[p - 1], ends[p])
  void* context = nullptr;
  std::size_t parts = 0;
  // A ranged loop's start: each part records when it ended, counted from here. A worker that
  // starts late (it had yielded its CPU, or the host had taken it) is as late at the join as
  // one that computes slowly, so both count.
  Clock::time_point start;
  std::array<std::size_t, kMaxThreads> ends{};
};
static_assert(offsetof(Announcement, ends) + 2 * sizeof(std::size_t) <= 64,
              "a two-thread loop's announcement fits one cache line");

// What a worker writes when its parts of a loop are done, in a line of its own: the caller
// reads each worker's line once, and no two writers take turns with one line.
struct alignas(64) Answer {
  std::atomic<std::uint64_t> generation{0};
  double seconds = 0.0;  // a ranged loop: when this worker's part ended, from the loop's start
};

// Items offered for idle time (offer_idle): claimed one at a time from `next`, counted in
// `done` once run. Withdrawing swaps `next` past any count, so later claims fail.
struct IdleOffer {
  static constexpr std::size_t kClosed = std::numeric_limits<std::size_t>::max() / 2;
  std::atomic<std::size_t> next{kClosed};
  std::atomic<std::size_t> done{0};
  std::atomic<std::size_t> count{0};
  ItemFn fn = nullptr;
  void* context = nullptr;
  std::mutex error_mutex;
  std::exception_ptr error;
};

class Pool {
 public:
  explicit Pool(std::size_t threads) : threads_(threads) {
    share_.fill(1.0 / static_cast<double>(threads));
    for (std::size_t w = 1; w < threads; ++w) workers_.emplace_back([this, w] { work(w); });
  }
  ~Pool() {
    stop_.store(true, std::memory_order_release);
    announce_.generation.fetch_add(1, std::memory_order_acq_rel);
    announce_.generation.notify_all();
  }  // the jthreads join here
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  [[nodiscard]] std::size_t size() const { return threads_; }

  void run(std::size_t parts, PartFn fn, void* context) {
    announce(fn, nullptr, context, parts);
    (void)run_announced();
  }

  // A ranged loop in `parts` pieces: split by the shares (evenly when fewer parts than
  // threads), run, and the shares moved by what the parts' times say.
  void run_ranges(std::size_t n, std::size_t grain, std::size_t parts, RangeFn fn, void* context) {
    announce(nullptr, fn, context, parts);
    split(n, grain, parts);
    announce_.start = Clock::now();
    const double seconds = run_announced();
    if (parts == threads_ && !fixed_) adapt(seconds);
  }

  void offer_idle(std::size_t n, ItemFn fn, void* context) {
    if (offered_) throw std::logic_error("offer_idle: an offer is already out");
    offered_ = true;
    idle_.fn = fn;
    idle_.context = context;
    idle_.count.store(n, std::memory_order_relaxed);
    idle_.error = nullptr;
    idle_.done.store(0, std::memory_order_relaxed);
    idle_.next.store(0, std::memory_order_release);  // publishes the fields above
  }

  std::size_t withdraw_idle() {
    if (!offered_) return 0;
    offered_ = false;
    const std::size_t taken = std::min(idle_.next.exchange(IdleOffer::kClosed, std::memory_order_acq_rel),
                                       idle_.count.load(std::memory_order_relaxed));
    for (std::size_t done = idle_.done.load(std::memory_order_acquire); done != taken;) {
      done = wait_filling(idle_.done, done, 0);  // the offer is closed: no item is taken here
    }
    if (idle_.error) std::rethrow_exception(idle_.error);
    return taken;
  }

  [[nodiscard]] std::vector<double> shares() const { return {share_.begin(), share_.begin() + threads_}; }

  void fix_shares(std::span<const double> shares) {
    if (shares.size() != threads_) {
      throw std::invalid_argument("fix_shares: " + std::to_string(shares.size()) + " shares for " +
                                  std::to_string(threads_) + " threads");
    }
    double total = 0.0;
    for (const double x : shares) {
      if (!(x >= 0.0)) throw std::invalid_argument("fix_shares: a share is negative or not a number");
      total += x;
    }
    if (!(total > 0.0) || !std::isfinite(total)) throw std::invalid_argument("fix_shares: the shares sum to 0");
    for (std::size_t t = 0; t < threads_; ++t) share_[t] = shares[t] / total;
    fixed_ = true;
  }

  void release_shares() {
    share_.fill(1.0 / static_cast<double>(threads_));
    fixed_ = false;
  }

 private:
  // The loop's function (one of the two), its context and its part count, for the next
  // run_announced(); a ranged loop's ends and start are set by run_ranges.
  void announce(PartFn part_fn, RangeFn range_fn, void* context, std::size_t parts) {
    announce_.part_fn = part_fn;
    announce_.range_fn = range_fn;
    announce_.context = context;
    announce_.parts = parts;
  }

  // The announced loop, run: part 0's share here, the others' on the workers; returns
  // when every worker has answered, with the seconds this thread's ranged part took.
  double run_announced() {
    error_ = nullptr;
    const std::uint64_t generation = announce_.generation.load(std::memory_order_relaxed) + 1;
    // The caller alone writes the generation; the store publishes the fields above.
    announce_.generation.store(generation, std::memory_order_release);
    announce_.generation.notify_all();
    const double seconds = run_share(0);
    // Every worker answers every loop, even one with no part for it: no worker can then
    // lag a loop behind and read the next loop's job as its own.
    for (std::size_t w = 1; w < threads_; ++w) {
      const std::atomic<std::uint64_t>& answered = answers_[w].generation;
      for (std::uint64_t g = answered.load(std::memory_order_acquire); g != generation;) {
        g = wait_filling(answered, g, 0);
      }
    }
    if (error_) std::rethrow_exception(error_);
    return seconds;
  }

  // Part p's begin and end in the announced ranged loop.
  [[nodiscard]] std::size_t begin_of(std::size_t part) const { return part == 0 ? 0 : announce_.ends[part - 1]; }

  // Ends at the multiples of `grain` nearest to where the shares put them.
  void split(std::size_t n, std::size_t grain, std::size_t parts) {
    const bool even = parts != threads_;
    double before = 0.0;  // the shares of parts [0, p]
    for (std::size_t p = 0; p + 1 < parts; ++p) {
      before += even ? 1.0 / static_cast<double>(parts) : share_[p];
      const auto grains =
          static_cast<std::size_t>(std::llround(before * static_cast<double>(n) / static_cast<double>(grain)));
      announce_.ends[p] = std::clamp(grains * grain, begin_of(p), n);
    }
    announce_.ends[parts - 1] = n;
  }

  // Each thread's speed in elements per second; the split they imply is where the shares
  // move towards. A loop in which a thread had nothing to do says nothing of its speed.
  // `caller_seconds` is thread 0's part; the workers' are in their answers.
  void adapt(double caller_seconds) {
    std::array<double, kMaxThreads> rate{};
    double total = 0.0;
    for (std::size_t t = 0; t < threads_; ++t) {
      const auto size = static_cast<double>(announce_.ends[t] - begin_of(t));
      const double seconds = t == 0 ? caller_seconds : answers_[t].seconds;
      if (size == 0.0 || !(seconds > 0.0)) return;
      rate[t] = size / seconds;
      total += rate[t];
    }
    const double even = 1.0 / static_cast<double>(threads_);
    double sum = 0.0;
    for (std::size_t t = 0; t < threads_; ++t) {
      share_[t] += kShareStep * (rate[t] / total - share_[t]);
      share_[t] = std::clamp(share_[t], kMinShare * even, kMaxShare * even);
      sum += share_[t];
    }
    for (std::size_t t = 0; t < threads_; ++t) share_[t] /= sum;
  }

  // Runs thread `thread`'s parts of the announced loop; for a ranged loop (one part a
  // thread at most), returns when its part ended, counted from the loop's start.
  double run_share(std::size_t thread) {
    const Announcement& a = announce_;
    double seconds = 0.0;
    t_inside_part = true;
    for (std::size_t p = thread; p < a.parts; p += threads_) {
      try {
        if (a.part_fn != nullptr) {
          a.part_fn(a.context, p);
        } else if (begin_of(p) < a.ends[p]) {
          a.range_fn(a.context, p, begin_of(p), a.ends[p]);
        }
      } catch (...) {
        const std::lock_guard lock(error_mutex_);
        if (!error_) error_ = std::current_exception();
      }
      if (a.range_fn != nullptr) seconds = std::chrono::duration<double>(Clock::now() - a.start).count();
    }
    t_inside_part = false;
    return seconds;
  }

  // Claims and runs one offered item; false when none is left.
  bool run_idle_item(std::size_t thread) {
    // A look first, so that threads waiting on an offer all taken do not take turns
    // writing its line.
    if (idle_.next.load(std::memory_order_relaxed) >= idle_.count.load(std::memory_order_relaxed)) return false;
    const std::size_t item = idle_.next.fetch_add(1, std::memory_order_acq_rel);
    // All taken, or withdrawn since the look: `next` is then far past any count.
    if (item >= idle_.count.load(std::memory_order_relaxed)) return false;
    t_inside_part = true;
    try {
      idle_.fn(idle_.context, item, thread);
    } catch (...) {
      const std::lock_guard lock(idle_.error_mutex);
      if (!idle_.error) idle_.error = std::current_exception();
    }
    t_inside_part = false;
    idle_.done.fetch_add(1, std::memory_order_release);
    idle_.done.notify_one();
    return true;
  }

  // Polls `a` on thread `thread` until it differs from `old`, running offered items one at a
  // time once it has waited kIdleAfter, then sleeps on it.
  template <class T>
  T wait_filling(const std::atomic<T>& a, T old, std::size_t thread) {
    // The clock is read once a round of polls has found nothing: most waits end sooner.
    Clock::time_point start;
    for (bool first_round = true;; first_round = false) {
      for (int i = 0, polls = first_round ? kFirstPolls : kPollsPerRound; i < polls; ++i) {
        const T now = a.load(std::memory_order_acquire);
        if (now != old) return now;
      }
      const auto now = Clock::now();
      if (first_round) start = now;
      if (now - start >= kIdleAfter) {
        while (run_idle_item(thread)) {
          const T value = a.load(std::memory_order_acquire);
          if (value != old) return value;
        }
      }
      if (now - start >= kSpin) break;
      std::this_thread::yield();
    }
    a.wait(old, std::memory_order_acquire);
    return a.load(std::memory_order_acquire);
  }

  void work(std::size_t thread) {
    std::uint64_t seen = 0;
    for (;;) {
      seen = wait_filling(announce_.generation, seen, thread);
      if (stop_.load(std::memory_order_acquire)) return;
      Answer& answer = answers_[thread];
      answer.seconds = run_share(thread);  // nothing when the loop has fewer parts than threads
      answer.generation.store(seen, std::memory_order_release);
      answer.generation.notify_one();
    }
  }

  const std::size_t threads_;
  std::atomic<bool> stop_{false};
  Announcement announce_;                    // written by the caller only
  std::array<Answer, kMaxThreads> answers_;  // answers_[w] written by worker w only
  std::mutex error_mutex_;
  std::exception_ptr error_;
  std::array<double, kMaxThreads> share_{};  // thread t's share of a ranged loop; sums to 1
  bool fixed_ = false;                       // fix_shares() holds them
  IdleOffer idle_;
  bool offered_ = false;               // an offer is out (the caller's side)
  std::vector<std::jthread> workers_;  // last: they start after every field above exists
};

std::size_t checked_threads(std::size_t n) {
  if (n == 0 || n > kMaxThreads) {
    throw option_error("threads", "the number of threads must be between 1 and {}, got {}", kMaxThreads, n);
  }
  return n;
}

std::size_t threads_from_env() {
  const char* env = std::getenv("SEATORCH_THREADS");
  if (env == nullptr || *env == '\0') return 1;
  const std::string_view text(env);
  std::size_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n == 0 || n > kMaxThreads) {
    throw input_error("SEATORCH_THREADS='{}' is not a thread count; set it to a whole number from 1 to {}", text,
                      kMaxThreads);
  }
  return n;
}

std::mutex g_pool_mutex;  // guards g_pool's replacement, not its loops
std::unique_ptr<Pool> g_pool;
std::mutex g_run_mutex;  // held by the thread whose loop the pool runs

Pool& pool() {
  const std::lock_guard lock(g_pool_mutex);
  if (!g_pool) g_pool = std::make_unique<Pool>(threads_from_env());
  return *g_pool;
}

// The pool's turn for a loop of `parts` parts, or an empty lock when the loop is to run
// inline: one part, a loop inside a part, or one started while another thread's loop holds
// the pool.
std::unique_lock<std::mutex> pool_turn(std::size_t parts) {
  std::unique_lock<std::mutex> turn(g_run_mutex, std::defer_lock);
  if (parts > 1 && !t_inside_part) (void)turn.try_lock();
  return turn;
}

}  // namespace

void set_threads(std::size_t n) {
  checked_threads(n);
  const std::lock_guard lock(g_pool_mutex);
  if (g_pool && g_pool->size() == n) return;
  g_pool.reset();  // joins the old workers first
  g_pool = std::make_unique<Pool>(n);
}

std::size_t threads() { return pool().size(); }

std::size_t loop_threads() { return t_inside_part ? 1 : threads(); }

void run_parts(std::size_t parts, PartFn fn, void* context) {
  if (parts == 0) return;
  Pool& p = pool();
  const auto turn = pool_turn(std::min(parts, p.size()));
  if (!turn.owns_lock()) {
    std::exception_ptr error;  // the first, rethrown once every part has run, as the pool does
    for (std::size_t i = 0; i < parts; ++i) {
      try {
        fn(context, i);
      } catch (...) {
        if (!error) error = std::current_exception();
      }
    }
    if (error) std::rethrow_exception(error);
    return;
  }
  p.run(parts, fn, context);
}

void run_ranges(std::size_t n, std::size_t grain, std::size_t min_size, RangeFn fn, void* context) {
  if (n == 0) return;
  Pool& p = pool();
  const std::size_t most = min_size == 0 ? p.size() : std::max<std::size_t>(1, n / min_size);
  const std::size_t parts = std::min(p.size(), most);
  const auto turn = pool_turn(parts);
  if (!turn.owns_lock()) {
    fn(context, 0, 0, n);
    return;
  }
  p.run_ranges(n, std::max<std::size_t>(1, grain), parts, fn, context);
}

void offer_idle(std::size_t n, ItemFn fn, void* context) { pool().offer_idle(n, fn, context); }

std::size_t withdraw_idle() { return pool().withdraw_idle(); }

std::vector<double> shares() {
  Pool& p = pool();
  const std::lock_guard turn(g_run_mutex);
  return p.shares();
}

void fix_shares(std::span<const double> shares) {
  Pool& p = pool();
  const std::lock_guard turn(g_run_mutex);
  p.fix_shares(shares);
}

void release_shares() {
  Pool& p = pool();
  const std::lock_guard turn(g_run_mutex);
  p.release_shares();
}

}  // namespace seatorch::core
