// Element types seatorch stores: float32 for training, int8/uint8/int32 for the quantized
// model. The names are safetensors' dtype strings, so checkpoints need no translation table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace seatorch::core {

enum class DType : std::uint8_t { kF32, kI8, kU8, kI32 };

constexpr std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::kF32:
    case DType::kI32:
      return 4;
    case DType::kI8:
    case DType::kU8:
      return 1;
  }
  return 0;
}

// "F32", "I8", "U8", "I32": the safetensors spelling.
constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::kF32:
      return "F32";
    case DType::kI8:
      return "I8";
    case DType::kU8:
      return "U8";
    case DType::kI32:
      return "I32";
  }
  return "?";
}

// The C++ type behind each dtype, for templated kernels: DTypeOf<float>::value == kF32.
template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::kF32;
};
template <>
struct DTypeOf<std::int8_t> {
  static constexpr DType value = DType::kI8;
};
template <>
struct DTypeOf<std::uint8_t> {
  static constexpr DType value = DType::kU8;
};
template <>
struct DTypeOf<std::int32_t> {
  static constexpr DType value = DType::kI32;
};

}  // namespace seatorch::core
