// Tensor storage and view semantics: dtypes, alignment, shared storage, strides, offsets,
// broadcasting, and contiguous() copying only when the layout demands it.
#include "seatorch/core/error.hpp"
#include "seatorch/tensor/ops.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <numeric>
#include <stdexcept>

using namespace seatorch::tensor;
using seatorch::core::DType;

namespace {

// 0, 1, 2, ... in the given shape.
Tensor iota(const Shape& shape) {
  std::vector<float> v(shape.numel());
  std::iota(v.begin(), v.end(), 0.0f);
  return Tensor::from<float>(v, shape);
}

}  // namespace

TEST_CASE("tensors of every dtype are made contiguous and 64-byte aligned", "[tensor]") {
  const Tensor f = Tensor::zeros({2, 3});
  CHECK(f.dtype() == seatorch::core::DType::kF32);
  CHECK(f.strides() == Strides{3, 1});
  CHECK(f.is_contiguous());
  CHECK(f.values() == std::vector<float>(6, 0.0f));
  for (seatorch::core::DType dtype : {seatorch::core::DType::kF32, seatorch::core::DType::kI8,
                                      seatorch::core::DType::kU8, seatorch::core::DType::kI32}) {
    const Tensor t = Tensor::empty({5, 7}, dtype);
    INFO("dtype " << seatorch::core::dtype_name(dtype));
    CHECK(t.storage()->bytes() == 35 * seatorch::core::dtype_size(dtype));
    CHECK(reinterpret_cast<std::uintptr_t>(t.storage()->data()) % kStorageAlignment == 0);
  }
  const std::vector<std::int8_t> q{-128, -1, 0, 127};
  const Tensor i8 = Tensor::from<std::int8_t>(q, {2, 2});
  CHECK(i8.values<std::int8_t>() == q);
  CHECK(transpose(i8, 0, 1).values<std::int8_t>() == std::vector<std::int8_t>{-128, 0, -1, 127});
  const std::vector<std::int32_t> labels{3, 1, 4};
  CHECK(Tensor::from<std::int32_t>(labels, {3}).values<std::int32_t>() == labels);
  CHECK_THROWS_AS(i8.data<float>(), std::logic_error);
  CHECK_THROWS_AS(Tensor::from({1.0f, 2.0f}, {3}), seatorch::core::InputError);
  CHECK(Tensor::scalar(2.5f).rank() == 0);
  CHECK(Tensor::scalar(2.5f).item() == 2.5f);
}

TEST_CASE("freed large buffers are reused for the same size, and the cache stays bounded", "[tensor]") {
  const std::size_t big = kRecycleMinBytes * 4;
  const std::byte* first = nullptr;
  {
    const Storage s(big);
    first = s.data();
  }
  if (recycled_bytes() == 0) {
    WARN("this build does not recycle buffers (a sanitizer build)");
    return;
  }
  {
    const Storage other_size(big + kStorageAlignment);
    CHECK(other_size.data() != first);
    const Storage same(big);
    CHECK(same.data() == first);
    CHECK(reinterpret_cast<std::uintptr_t>(same.data()) % kStorageAlignment == 0);
  }
  {
    const Storage small(kRecycleMinBytes / 2);  // below the threshold: never cached
    (void)small;
  }
  const std::size_t held = recycled_bytes();
  CHECK(held % kStorageAlignment == 0);
  std::vector<std::unique_ptr<Storage>> many;
  for (std::size_t i = 0; i < 2 * kRecycleMaxBytes / big; ++i) many.push_back(std::make_unique<Storage>(big + i * 64));
  many.clear();
  INFO("held " << recycled_bytes() << " bytes, limit " << kRecycleMaxBytes);
  CHECK(recycled_bytes() <= kRecycleMaxBytes);
  CHECK(recycled_bytes() > kRecycleMaxBytes - 2 * big);
}

TEST_CASE("reshape transpose slice and expand are views of the same storage", "[tensor]") {
  const Tensor x = iota({2, 3, 4});

  const Tensor r = reshape(x, {6, 4});
  CHECK(r.shares_storage(x));
  CHECK(r.strides() == Strides{4, 1});

  const Tensor t = transpose(x, 0, 2);  // (4, 3, 2)
  CHECK(t.shares_storage(x));
  CHECK(t.shape() == Shape{4, 3, 2});
  CHECK(t.strides() == Strides{1, 4, 12});
  CHECK_FALSE(t.is_contiguous());
  CHECK(t.at({3, 1, 1}) == x.at({1, 1, 3}));

  const Tensor p = permute(x, {1, 2, 0});  // (3, 4, 2)
  CHECK(p.strides() == Strides{4, 1, 12});
  CHECK(p.at({2, 3, 1}) == x.at({1, 2, 3}));

  const Tensor s = slice(x, 1, 1, 3);  // (2, 2, 4), starting at element [0, 1, 0]
  CHECK(s.shares_storage(x));
  CHECK(s.offset() == 4);
  CHECK(s.strides() == x.strides());
  CHECK(s.at({1, 1, 2}) == x.at({1, 2, 2}));

  const Tensor row = Tensor::from({1.0f, 2.0f, 3.0f}, {3});
  const Tensor e = expand(row, {4, 3});
  CHECK(e.shares_storage(row));
  CHECK(e.strides() == Strides{0, 1});
  CHECK(e.values() == std::vector<float>{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3});

  // A write through the base is seen by every view.
  x.data<float>()[1 * 12 + 2 * 4 + 2] = 100.0f;
  CHECK(s.at({1, 1, 2}) == 100.0f);
  CHECK(t.at({2, 2, 1}) == 100.0f);
}

TEST_CASE("contiguous copies only when the layout is not already dense", "[tensor]") {
  const Tensor x = iota({3, 4});
  const Tensor same = contiguous(x);
  CHECK(same.impl() == x.impl());  // no copy, not even a new handle target

  const Tensor sliced_rows = slice(x, 0, 1, 3);  // whole rows: still dense
  CHECK(sliced_rows.is_contiguous());
  CHECK(contiguous(sliced_rows).impl() == sliced_rows.impl());

  const Tensor t = transpose(x, 0, 1);
  const Tensor c = contiguous(t);
  CHECK_FALSE(c.shares_storage(x));
  CHECK(c.is_contiguous());
  CHECK(c.values() == std::vector<float>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  CHECK(t.values() == c.values());

  const Tensor cols = slice(x, 1, 1, 3);  // every row loses columns: not dense
  CHECK_FALSE(cols.is_contiguous());
  CHECK(contiguous(cols).values() == std::vector<float>{1, 2, 5, 6, 9, 10});

  // reshape of non-contiguous data must copy (as PyTorch's reshape does).
  const Tensor flat = reshape(t, {12});
  CHECK_FALSE(flat.shares_storage(x));
  CHECK(flat.values() == c.values());

  // Size-1 dimensions do not break contiguity whatever their stride.
  const Tensor one = Tensor::view_of(x, {1, 12}, {999, 1}, 0);
  CHECK(one.is_contiguous());
}

TEST_CASE("broadcasting follows NumPy's rules and names both shapes when it fails", "[tensor]") {
  CHECK(broadcast_shapes({3, 1}, {1, 4}) == Shape{3, 4});
  CHECK(broadcast_shapes({2, 3, 4}, {4}) == Shape{2, 3, 4});
  CHECK(broadcast_shapes({}, {2, 2}) == Shape{2, 2});
  CHECK_THROWS_WITH(broadcast_shapes({3, 2}, {3}), Catch::Contains("(3, 2)") && Catch::Contains("(3)"));
  CHECK(broadcast_strides({3, 1}, {1, 1}, {2, 3, 4}) == Strides{0, 1, 0});
  CHECK_THROWS_AS(expand(Tensor::zeros({2}), {3}), seatorch::core::InputError);
  CHECK_THROWS_AS(reshape(Tensor::zeros({2, 3}), {4}), seatorch::core::InputError);
  CHECK_THROWS_AS(slice(Tensor::zeros({2, 3}), 1, 2, 4), seatorch::core::InputError);
  CHECK_THROWS_AS(permute(Tensor::zeros({2, 3}), {0, 0}), seatorch::core::InputError);
  CHECK_THROWS_AS(Tensor::zeros({1, 1, 1, 1, 1, 1, 1}), seatorch::core::InputError);
}

TEST_CASE("elementwise ops read strided and broadcast operands without copying them", "[tensor]") {
  const Tensor x = iota({3, 4});
  const Tensor t = transpose(x, 0, 1);  // (4, 3), strided
  const Tensor col = Tensor::from({10.0f, 20.0f, 30.0f, 40.0f}, {4, 1});
  const Tensor y = t + col;
  REQUIRE(y.shape() == Shape{4, 3});
  REQUIRE(y.is_contiguous());
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 3; ++j) {
      INFO("y[" << i << "," << j << "]");
      CHECK(y.at({i, j}) == x.at({j, i}) + col.at({i, 0}));
    }
  }
}
