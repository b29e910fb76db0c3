// Element loops over strided operands: the one iteration scheme every elementwise,
// broadcasting and reduction kernel in src/tensor/ is written with.
//
// for_each_run() walks a shape in row-major order over N operands, each with its own
// strides (0 where an operand is broadcast), and hands the innermost dimension to a callback
// as one run: (count, offsets, inner strides). Before walking, it drops size-1 dimensions
// and merges neighbouring dimensions that are contiguous for every operand, so dense
// same-shape operands become a single run of numel() elements and the callback's
// stride-1 branch is a plain loop the compiler vectorizes. Private to the tensor engine.
#pragma once

#include "seatorch/tensor/autograd.hpp"
#include "seatorch/tensor/shape.hpp"
#include "seatorch/tensor/tensor.hpp"

#include <array>
#include <cstddef>
#include <cstdint>

namespace seatorch::tensor::detail {

template <std::size_t N>
using Offsets = std::array<std::size_t, N>;

template <std::size_t N, typename Run>
void for_each_run(const Shape& shape, const std::array<Strides, N>& strides, Run&& run) {
  std::array<std::size_t, kMaxDims> dims{};                  // merged sizes
  std::array<std::array<std::size_t, kMaxDims>, N> steps{};  // merged strides per operand
  std::size_t rank = 0;
  for (std::size_t d = 0; d < shape.rank(); ++d) {
    if (shape[d] == 0) return;
    if (shape[d] == 1) continue;
    bool merge = rank > 0;
    for (std::size_t k = 0; k < N && merge; ++k) merge = steps[k][rank - 1] == strides[k][d] * shape[d];
    if (merge) {
      dims[rank - 1] *= shape[d];
      for (std::size_t k = 0; k < N; ++k) steps[k][rank - 1] = strides[k][d];
    } else {
      dims[rank] = shape[d];
      for (std::size_t k = 0; k < N; ++k) steps[k][rank] = strides[k][d];
      ++rank;
    }
  }
  Offsets<N> offsets{};
  Offsets<N> inner{};
  if (rank == 0) {  // a single element
    run(std::size_t{1}, offsets, inner);
    return;
  }
  for (std::size_t k = 0; k < N; ++k) inner[k] = steps[k][rank - 1];
  std::array<std::size_t, kMaxDims> index{};
  for (;;) {
    run(dims[rank - 1], offsets, inner);
    // Odometer over the outer dimensions.
    std::size_t d = rank - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      for (std::size_t k = 0; k < N; ++k) offsets[k] += steps[k][d];
      if (++index[d] < dims[d]) break;
      for (std::size_t k = 0; k < N; ++k) offsets[k] -= steps[k][d] * dims[d];
      index[d] = 0;
    }
  }
}

template <bool Accumulate>
inline void store(float& dst, float value) {
  if constexpr (Accumulate) {
    dst += value;
  } else {
    dst = value;
  }
}

// out (contiguous, `shape`) = f(a), or += when Accumulate; `a` is read with any strides,
// broadcast to `shape`.
template <bool Accumulate, typename F>
void map1(float* out, const Shape& shape, const Tensor& a, F f) {
  const float* pa = a.data<float>();
  const std::array<Strides, 2> strides{contiguous_strides(shape), broadcast_strides(a.shape(), a.strides(), shape)};
  for_each_run<2>(shape, strides, [&](std::size_t n, Offsets<2> at, Offsets<2> step) {
    float* o = out + at[0];
    const float* x = pa + at[1];
    if (step[1] == 1) {
      for (std::size_t i = 0; i < n; ++i) store<Accumulate>(o[i], f(x[i]));
    } else {
      for (std::size_t i = 0; i < n; ++i) store<Accumulate>(o[i], f(x[i * step[1]]));
    }
  });
}

// out (contiguous, `shape`) = f(a, b), or += when Accumulate; `a` and `b` are read with any
// strides, broadcast to `shape`. The broadcast-scalar and broadcast-row cases keep a
// stride-1 inner loop.
template <bool Accumulate, typename F>
void map2(float* out, const Shape& shape, const Tensor& a, const Tensor& b, F f) {
  const float* pa = a.data<float>();
  const float* pb = b.data<float>();
  const std::array<Strides, 3> strides{contiguous_strides(shape), broadcast_strides(a.shape(), a.strides(), shape),
                                       broadcast_strides(b.shape(), b.strides(), shape)};
  for_each_run<3>(shape, strides, [&](std::size_t n, Offsets<3> at, Offsets<3> step) {
    float* o = out + at[0];
    const float* x = pa + at[1];
    const float* y = pb + at[2];
    if (step[1] == 1 && step[2] == 1) {
      for (std::size_t i = 0; i < n; ++i) store<Accumulate>(o[i], f(x[i], y[i]));
    } else if (step[1] == 1 && step[2] == 0) {
      const float yv = *y;
      for (std::size_t i = 0; i < n; ++i) store<Accumulate>(o[i], f(x[i], yv));
    } else if (step[1] == 0 && step[2] == 1) {
      const float xv = *x;
      for (std::size_t i = 0; i < n; ++i) store<Accumulate>(o[i], f(xv, y[i]));
    } else {
      for (std::size_t i = 0; i < n; ++i) store<Accumulate>(o[i], f(x[i * step[1]], y[i * step[2]]));
    }
  });
}

// Copies `in` (any dtype, any strides) into `out`, dense row-major; elements are moved as
// bit patterns of their width, so one routine serves every dtype.
template <typename Word>
void copy_strided(Word* out, const Word* in, const Shape& shape, const Strides& strides) {
  const std::array<Strides, 2> both{contiguous_strides(shape), strides};
  for_each_run<2>(shape, both, [&](std::size_t n, Offsets<2> at, Offsets<2> step) {
    for (std::size_t i = 0; i < n; ++i) out[at[0] + i] = in[at[1] + i * step[1]];
  });
}

inline void copy_to_dense(const Tensor& in, std::byte* out) {
  const std::byte* base = in.storage()->data();
  if (core::dtype_size(in.dtype()) == 1) {
    copy_strided(reinterpret_cast<std::uint8_t*>(out), reinterpret_cast<const std::uint8_t*>(base) + in.offset(),
                 in.shape(), in.strides());
  } else {
    copy_strided(reinterpret_cast<std::uint32_t*>(out), reinterpret_cast<const std::uint32_t*>(base) + in.offset(),
                 in.shape(), in.strides());
  }
}

// The same, writing into a gradient slot (overwrite a fresh one, add to an existing one).
template <typename F>
void map1_into(GradSlot slot, const Shape& shape, const Tensor& a, F f) {
  if (slot.accumulate) {
    map1<true>(slot.data, shape, a, f);
  } else {
    map1<false>(slot.data, shape, a, f);
  }
}

template <typename F>
void map2_into(GradSlot slot, const Shape& shape, const Tensor& a, const Tensor& b, F f) {
  if (slot.accumulate) {
    map2<true>(slot.data, shape, a, b, f);
  } else {
    map2<false>(slot.data, shape, a, b, f);
  }
}

}  // namespace seatorch::tensor::detail
