// The memory behind tensors: one 64-byte aligned, uninitialized byte buffer, shared by a
// tensor and every view of it (through shared_ptr<Storage>).
//
// 64 bytes is a cache line and an AVX-512 register, so SIMD kernels may use aligned loads
// on the first row of any freshly made tensor. Deliberately not here: dtype, shape, or any
// notion of which part of the buffer a tensor uses (that is the tensor's offset and strides).
#pragma once

#include <cstddef>

namespace seatorch::tensor {

inline constexpr std::size_t kStorageAlignment = 64;

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

}  // namespace seatorch::tensor
