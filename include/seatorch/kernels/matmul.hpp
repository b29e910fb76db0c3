// The one matmul entry point every float32 matrix product in seatorch goes through.
//
//   C = op(A) * op(B)          (accumulate = false)
//   C = C + op(A) * op(B)      (accumulate = true)
//
// op(A) is m x k and op(B) is k x n. All matrices are row-major with unit column stride and
// a row stride given in elements (lda, ldb, ldc), so a row-sliced view needs no copy. With
// Transpose::kYes the operand is stored transposed: A as (k, m) with row stride lda, B as
// (n, k) with row stride ldb. That covers the three forms training needs (A*B forward,
// A^T*B and A*B^T backward) without materialising a transpose. k == 0 is allowed: C is
// then zeroed (or left as is when accumulating).
//
// matmul() dispatches to the best kernel this CPU has (see kernel_names()); matmul_ref()
// is the plain triple loop, the specification every fast kernel is tested against. With
// more than one thread (core/parallel.hpp) matmul() and matmul_with() give each thread a
// block of C, with bit-identical results. The fused form adds a bias row and a ReLU as each
// tile of C leaves the registers (Epilogue). Deliberately not here: alpha/beta scaling beyond
// accumulate, non-unit column strides (the tensor layer makes such views contiguous first).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace seatorch::kernels {

enum class Transpose : bool { kNo = false, kYes = true };

struct KernelInfo;  // kernel_registry.hpp

struct MatmulShape {
  std::size_t m = 0;
  std::size_t n = 0;
  std::size_t k = 0;
  bool operator==(const MatmulShape&) const = default;
};

// The operands of one product. Pointers are not owned.
struct MatmulArgs {
  MatmulShape shape;
  const float* a = nullptr;
  std::size_t lda = 0;
  Transpose ta = Transpose::kNo;
  const float* b = nullptr;
  std::size_t ldb = 0;
  Transpose tb = Transpose::kNo;
  float* c = nullptr;
  std::size_t ldc = 0;
  bool accumulate = false;
};

// What a fused product does around the multiply:
//   C = relu(bias + op(A) op(B))
// in the order of the bias row written into C first and the product accumulated onto it,
// which is exactly linear()'s order of additions; ReLU (std::max(c, 0.0f)) follows when
// asked. The fast kernels do it as each tile of C leaves the registers: the first pass over
// the depth adds its sums to the bias, the last clamps what it stores (DECISIONS 82).
struct Epilogue {
  const float* bias = nullptr;  // (n) the row C starts from; null: C starts from zero
  bool relu = false;

  // The epilogue of C's columns from j0 on (a block of them, as a product of its own).
  [[nodiscard]] Epilogue from_column(std::size_t j0) const { return {bias == nullptr ? nullptr : bias + j0, relu}; }
};

// The specification: a plain triple loop in float32, summing over k in increasing order.
void matmul_ref(const MatmulArgs& args);

// The dispatched kernel: the one chosen by select_kernel(), else by the SEATORCH_KERNEL
// environment variable (read at the first call), else the best this CPU has.
void matmul(const MatmulArgs& args);
// The same product with an epilogue; args.accumulate must be false.
void matmul(const MatmulArgs& args, const Epilogue& epilogue);

// The names of the kernels this CPU can run, most preferred last (see kernel_registry.hpp).
std::vector<std::string> kernel_names();

// The available kernel called `name`. Throws InputError when it is unknown or this CPU lacks
// its ISA; the one-line message lists the available kernels and starts with `origin` (e.g.
// "SEATORCH_KERNEL"). With an empty `origin` it is an OptionError about the "matmul kernel".
const KernelInfo& require_kernel(std::string_view name, std::string_view origin);

// Makes matmul() use the kernel called `name` from now on (the CLI's --kernel). Throws
// OptionError ("matmul kernel") listing the available kernels when it is unknown or this
// CPU lacks its ISA.
void select_kernel(std::string_view name);

// The name of the kernel matmul() uses (resolving SEATORCH_KERNEL if not done yet).
std::string_view selected_kernel();
// The kernel itself (kernel_registry.hpp): sparse_matmul() runs its sparse twin.
const KernelInfo& selected_kernel_info();

// Runs the kernel called `name` once, whatever is selected (tests and the bench). An
// unknown name, or one this CPU lacks, is an InputError starting "matmul_with:" that lists
// the available kernels.
void matmul_with(std::string_view name, const MatmulArgs& args);

}  // namespace seatorch::kernels
