// ProductLog: while a scope records, every matmul() call on that thread lands in one row per
// shape, form and epilogue, once per call however many threads split it; matmul_with(),
// calls outside the scope and calls made by other threads do not.
#include "seatorch/core/parallel.hpp"
#include "seatorch/kernels/matmul.hpp"
#include "seatorch/kernels/product_log.hpp"

#include <catch2/catch.hpp>

#include <thread>
#include <vector>

namespace k = seatorch::kernels;

namespace {

// Operands for C (m, n) = op(A) op(B), all ones, and the C to write.
struct Operands {
  std::vector<float> a, b, c, bias;
  Operands(std::size_t m, std::size_t n, std::size_t depth)
      : a(m * depth, 1.0f), b(depth * n, 1.0f), c(m * n, 0.0f), bias(n, 1.0f) {}
};

k::MatmulArgs args_for(Operands& o, k::MatmulShape s, k::Transpose ta, k::Transpose tb) {
  return {s,    o.a.data(), ta == k::Transpose::kYes ? s.m : s.k,
          ta,   o.b.data(), tb == k::Transpose::kYes ? s.k : s.n,
          tb,   o.c.data(), s.n,
          false};
}

}  // namespace

TEST_CASE("a product log records each matmul() call of its scope under its shape, form and epilogue", "[kernels]") {
  Operands small(4, 8, 16);
  Operands large(130, 140, 150);  // above the size at which a product is split across threads
  const k::MatmulArgs nt = args_for(small, {4, 8, 16}, k::Transpose::kNo, k::Transpose::kYes);
  const k::MatmulArgs tn = args_for(large, {130, 140, 150}, k::Transpose::kYes, k::Transpose::kNo);

  k::matmul(nt);  // before the scope: not recorded
  k::ProductLog log;
  {
    const k::RecordProducts recording(log);
    CHECK(k::recording_log() == &log);
    k::matmul(nt);
    k::matmul(nt);
    k::matmul(nt, {small.bias.data(), true});
    {
      const seatorch::core::ScopedThreads two(2);
      k::matmul(tn);  // split across two threads: still one call
    }
    k::matmul_with(k::kernel_names().front(), nt);  // a kernel run directly: not a product of the model
    std::thread other([&] { k::matmul(nt); });      // another thread does not record into this log
    other.join();
    {
      k::ProductLog inner;
      const k::RecordProducts nested(inner);
      k::matmul(tn);
      CHECK(inner.records().size() == 1);
    }
    CHECK(k::recording_log() == &log);  // the outer log records again after the nested scope
    {
      const k::PauseRecording paused;
      CHECK(k::recording_log() == nullptr);
      k::matmul(tn);  // paused: not recorded
    }
    CHECK(k::recording_log() == &log);
    k::matmul(tn);
  }
  CHECK(k::recording_log() == nullptr);
  k::matmul(nt);  // after the scope: not recorded

  const std::vector<k::ProductRecord>& rows = log.records();
  REQUIRE(rows.size() == 3);
  // In the order the kinds first ran.
  CHECK((rows[0].kind.shape.m == 4 && rows[0].kind.shape.n == 8 && rows[0].kind.shape.k == 16));
  CHECK(rows[0].kind.ta == k::Transpose::kNo);
  CHECK(rows[0].kind.tb == k::Transpose::kYes);
  CHECK(!rows[0].kind.bias);
  CHECK(!rows[0].kind.relu);
  CHECK(rows[0].calls == 2);
  CHECK(rows[0].flops == 2 * 2.0 * 4 * 8 * 16);
  CHECK(rows[1].kind.bias);
  CHECK(rows[1].kind.relu);
  CHECK(rows[1].calls == 1);
  CHECK((rows[2].kind.shape.m == 130 && rows[2].kind.shape.n == 140 && rows[2].kind.shape.k == 150));
  CHECK(rows[2].kind.ta == k::Transpose::kYes);
  CHECK(rows[2].calls == 2);
  CHECK(rows[2].flops == 2 * 2.0 * 130 * 140 * 150);
  for (const k::ProductRecord& r : rows) CHECK(r.seconds > 0.0);
  CHECK(k::total_seconds(rows) == rows[0].seconds + rows[1].seconds + rows[2].seconds);
}

TEST_CASE("a product log records a sparse product under its dense shape with the FLOPs it did", "[kernels]") {
  // A (3, 5) with 4 nonzeros, op(B) (5, 6): 2 * 4 * 6 FLOPs a call, against 2 * 3 * 6 * 5 dense.
  const std::vector<float> a{1, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 4};
  k::SparseCopies copies;
  k::compress_rows(a.data(), 3, 5, 5, 1, copies);
  const k::SparseRows& rows = copies[0];
  const std::vector<float> b(5 * 6, 1.0f);
  std::vector<float> c(3 * 6);
  std::vector<float> ct(6 * 3);
  const std::vector<float> g(3 * 6, 1.0f);
  std::vector<float> at_g(5 * 6);
  k::ProductLog log;
  {
    const k::RecordProducts recording(log);
    k::sparse_matmul({&rows, b.data(), 6, k::Transpose::kNo, 6, c.data(), 6, false, false});
    k::sparse_matmul({&rows, b.data(), 6, k::Transpose::kNo, 6, ct.data(), 3, true, false});
    k::sparse_matmul_tn({&rows, g.data(), 6, k::Transpose::kNo, 6, at_g.data(), 6, false, false});
    k::sparse_matmul_tn({&rows, g.data(), 6, k::Transpose::kNo, 6, at_g.data(), 5, true, false});
  }
  const std::vector<k::ProductRecord>& records = log.records();
  REQUIRE(records.size() == 4);
  CHECK(records[0].kind.sparse);
  CHECK(records[0].kind.shape == k::MatmulShape{3, 6, 5});
  CHECK(records[0].flops == 2.0 * 4 * 6);
  CHECK(records[0].kind.dense_flops() == 2.0 * 3 * 6 * 5);
  // Stored transposed, it stands for the product of Cᵀ: (6, 3) = Bᵀ Aᵀ, the weight gradient's form.
  CHECK(records[1].kind.shape == k::MatmulShape{6, 3, 5});
  CHECK(records[1].kind.ta == k::Transpose::kYes);
  CHECK(records[1].flops == 2.0 * 4 * 6);
  // Aᵀ G (5, 6), G (3, 6): the dense product of A stored transposed, (5, 6, 3).
  CHECK(records[2].kind.shape == k::MatmulShape{5, 6, 3});
  CHECK(records[2].kind.ta == k::Transpose::kYes);
  CHECK(records[2].kind.tb == k::Transpose::kNo);
  CHECK(records[2].flops == 2.0 * 4 * 6);
  // Stored transposed, Gᵀ A (6, 5): the weight gradient of a W held (out, in).
  CHECK(records[3].kind.shape == k::MatmulShape{6, 5, 3});
  CHECK(records[3].kind.ta == k::Transpose::kYes);
  CHECK(records[3].kind.tb == k::Transpose::kNo);
  CHECK(k::total_flops(records) == 4 * 2.0 * 4 * 6);
}
