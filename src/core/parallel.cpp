// The worker pool behind parallel_for (see parallel.hpp): std::jthread workers woken by a
// generation counter, spinning a little before they sleep on it.
#include "seatorch/core/parallel.hpp"

#include "seatorch/core/error.hpp"

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
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
// ten times as long).
constexpr auto kSpin = std::chrono::microseconds(500);
constexpr int kPollsPerRound = 256;

thread_local bool t_inside_part = false;

// Polls `a` until it differs from `old`, then sleeps on it.
template <class T>
T wait_change(const std::atomic<T>& a, T old) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  for (;;) {
    for (int i = 0; i < kPollsPerRound; ++i) {
      const T now = a.load(std::memory_order_acquire);
      if (now != old) return now;
    }
    if (std::chrono::steady_clock::now() >= until) break;
    std::this_thread::yield();
  }
  a.wait(old, std::memory_order_acquire);
  return a.load(std::memory_order_acquire);
}

class Pool {
 public:
  explicit Pool(std::size_t threads) : threads_(threads) {
    for (std::size_t w = 1; w < threads; ++w) workers_.emplace_back([this, w] { work(w); });
  }
  ~Pool() {
    stop_.store(true, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_acq_rel);
    generation_.notify_all();
  }  // the jthreads join here
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  [[nodiscard]] std::size_t size() const { return threads_; }

  void run(std::size_t parts, PartFn fn, void* context) {
    fn_ = fn;
    context_ = context;
    parts_ = parts;
    error_ = nullptr;
    // Every worker answers every loop, even one with no part for it: no worker can then
    // lag a loop behind and read the next loop's job as its own.
    pending_.store(threads_ - 1, std::memory_order_relaxed);
    generation_.fetch_add(1, std::memory_order_acq_rel);
    generation_.notify_all();
    run_share(0);
    for (std::size_t left = pending_.load(std::memory_order_acquire); left != 0;) {
      left = wait_change(pending_, left);
    }
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void run_share(std::size_t thread) {
    t_inside_part = true;
    for (std::size_t p = thread; p < parts_; p += threads_) {
      try {
        fn_(context_, p);
      } catch (...) {
        const std::lock_guard lock(error_mutex_);
        if (!error_) error_ = std::current_exception();
      }
    }
    t_inside_part = false;
  }

  void work(std::size_t thread) {
    std::uint64_t seen = 0;
    for (;;) {
      seen = wait_change(generation_, seen);
      if (stop_.load(std::memory_order_acquire)) return;
      run_share(thread);  // nothing when the loop has fewer parts than threads
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
    }
  }

  const std::size_t threads_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::size_t> pending_{0};
  std::atomic<bool> stop_{false};
  PartFn fn_ = nullptr;
  void* context_ = nullptr;
  std::size_t parts_ = 0;
  std::mutex error_mutex_;
  std::exception_ptr error_;
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

}  // namespace

void set_threads(std::size_t n) {
  checked_threads(n);
  const std::lock_guard lock(g_pool_mutex);
  if (g_pool && g_pool->size() == n) return;
  g_pool.reset();  // joins the old workers first
  g_pool = std::make_unique<Pool>(n);
}

std::size_t threads() { return pool().size(); }

void run_parts(std::size_t parts, PartFn fn, void* context) {
  if (parts == 0) return;
  Pool& p = pool();
  // Inline: a loop inside a part, or one started while another thread's loop holds the pool.
  std::unique_lock<std::mutex> turn(g_run_mutex, std::defer_lock);
  if (parts == 1 || p.size() == 1 || t_inside_part || !turn.try_lock()) {
    for (std::size_t i = 0; i < parts; ++i) fn(context, i);
    return;
  }
  p.run(parts, fn, context);
}

}  // namespace seatorch::core
