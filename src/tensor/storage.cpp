// Aligned allocation through the aligned operator new (C++17): no platform calls.
#include "seatorch/tensor/storage.hpp"

#include <new>

namespace seatorch::tensor {

Storage::Storage(std::size_t bytes)
    // Zero-byte tensors still get a valid, unique pointer, so data() is never null.
    : data_(static_cast<std::byte*>(
          ::operator new (bytes == 0 ? kStorageAlignment : bytes, std::align_val_t{kStorageAlignment}))),
      bytes_(bytes) {}

Storage::~Storage() { ::operator delete (data_, std::align_val_t{kStorageAlignment}); }

}  // namespace seatorch::tensor
