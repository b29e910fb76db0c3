// Aligned allocation through the aligned operator new (C++17), with the per-thread cache of
// freed large buffers that storage.hpp describes.
#include "seatorch/tensor/storage.hpp"

#include <algorithm>
#include <new>
#include <vector>

namespace seatorch::tensor {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kRecycle = false;
#else
constexpr bool kRecycle = true;
#endif

std::byte* allocate(std::size_t bytes) {
  return static_cast<std::byte*>(::operator new (bytes, std::align_val_t{kStorageAlignment}));
}

void release(std::byte* data) { ::operator delete (data, std::align_val_t{kStorageAlignment}); }

struct Recycled {
  std::byte* data;
  std::size_t bytes;
};

// Freed buffers, oldest first. A vector of a few dozen entries: a linear search is cheaper
// than any map at this size.
class RecycleCache {
 public:
  RecycleCache() { alive_ = true; }
  ~RecycleCache() {
    alive_ = false;
    for (const Recycled& r : buffers_) release(r.data);
  }
  RecycleCache(const RecycleCache&) = delete;
  RecycleCache& operator=(const RecycleCache&) = delete;

  // Storages destroyed after this thread's cache (at exit) free their buffers directly.
  static bool alive() { return alive_; }

  std::byte* take(std::size_t bytes) {
    const auto it =
        std::find_if(buffers_.rbegin(), buffers_.rend(), [&](const Recycled& r) { return r.bytes == bytes; });
    if (it == buffers_.rend()) return nullptr;
    std::byte* data = it->data;
    held_ -= bytes;
    buffers_.erase(std::next(it).base());
    return data;
  }

  void give(std::byte* data, std::size_t bytes) {
    if (bytes > kRecycleMaxBytes) {
      release(data);
      return;
    }
    while (held_ + bytes > kRecycleMaxBytes) {
      release(buffers_.front().data);
      held_ -= buffers_.front().bytes;
      buffers_.erase(buffers_.begin());
    }
    buffers_.push_back({data, bytes});
    held_ += bytes;
  }

  [[nodiscard]] std::size_t held() const { return held_; }

 private:
  static thread_local bool alive_;
  std::vector<Recycled> buffers_;
  std::size_t held_ = 0;
};

thread_local bool RecycleCache::alive_ = false;

RecycleCache& cache() {
  thread_local RecycleCache c;
  return c;
}

bool recyclable(std::size_t bytes) { return kRecycle && bytes >= kRecycleMinBytes; }

}  // namespace

Storage::Storage(std::size_t bytes) : data_(nullptr), bytes_(bytes) {
  if (recyclable(bytes)) data_ = cache().take(bytes);
  // Zero-byte tensors still get a valid, unique pointer, so data() is never null.
  if (data_ == nullptr) data_ = allocate(bytes == 0 ? kStorageAlignment : bytes);
}

Storage::~Storage() {
  if (recyclable(bytes_) && RecycleCache::alive()) {
    cache().give(data_, bytes_);
  } else {
    release(data_);
  }
}

std::size_t recycled_bytes() { return RecycleCache::alive() ? cache().held() : 0; }

}  // namespace seatorch::tensor
