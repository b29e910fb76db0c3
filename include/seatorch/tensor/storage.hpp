// The memory behind tensors: one 64-byte aligned, uninitialized byte buffer, shared by a
// tensor and every view of it (through shared_ptr<Storage>).
//
// 64 bytes is a cache line and an AVX-512 register, so SIMD kernels may use aligned loads
// on the first row of any freshly made tensor.
//
// Large buffers are recycled: a training step frees and makes the same activations and
// gradients every step, and without reuse each one of them is a fresh mmap whose pages the
// kernel must fault in and zero (a tenth of the 784-128-10 epoch). A freed buffer of at
// least kRecycleMinBytes waits in a small per-thread cache for the next request of exactly
// its size; the cache holds at most kRecycleMaxBytes, the oldest buffers leaving first, so
// it never holds more than a training step's worth. Sanitizer builds skip the cache, so a
// use after free is still caught.
// Deliberately not here: dtype, shape, or any notion of which part of the buffer a tensor
// uses (that is the tensor's offset and strides).
#pragma once

#include <cstddef>

namespace seatorch::tensor {

inline constexpr std::size_t kStorageAlignment = 64;
inline constexpr std::size_t kRecycleMinBytes = std::size_t{64} << 10;
inline constexpr std::size_t kRecycleMaxBytes = std::size_t{32} << 20;

class Storage {
 public:
  explicit Storage(std::size_t bytes);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  [[nodiscard]] std::byte* data() const { return data_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

 private:
  std::byte* data_;
  std::size_t bytes_;
};

// The bytes this thread's cache of freed buffers holds now (tests).
std::size_t recycled_bytes();

}  // namespace seatorch::tensor
