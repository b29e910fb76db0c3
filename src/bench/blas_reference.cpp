// cblas_sgemm behind the MatmulArgs interface, when the build found a BLAS
// (SEATORCH_HAVE_BLAS, its library files in SEATORCH_BLAS_LIBRARIES; SEATORCH_BLAS_OPENBLAS
// when it is OpenBLAS, whose thread count and version we can query).
//
// The BLAS is opened on first use (dlopen), not linked. OpenBLAS starts its threads when it is
// loaded, and an idle one polls with sched_yield for a while before it sleeps: linked, it did
// that at the start of every seatorch command, beside the command's own threads, although
// only `bench matmul` calls it (DECISIONS 58).
#include "seatorch/bench/blas_reference.hpp"

#include "seatorch/core/parallel.hpp"

#include <stdexcept>
#include <string>

#if SEATORCH_HAVE_BLAS
#include <cblas.h>
#include <dlfcn.h>

#include <algorithm>
#include <string_view>
#endif

namespace seatorch::bench {

#if SEATORCH_HAVE_BLAS

namespace {

// The entry points the bench calls, looked up in the libraries CMake found. Their types come
// from cblas.h; naming them in decltype does not link them.
struct BlasLibrary {
  decltype(&cblas_sgemm) sgemm = nullptr;
#if SEATORCH_BLAS_OPENBLAS
  decltype(&openblas_get_config) get_config = nullptr;
  decltype(&openblas_get_corename) get_corename = nullptr;
  decltype(&openblas_set_num_threads) set_num_threads = nullptr;
#endif
  std::string error;  // why it is missing; empty when it loaded
};

// Points fn at the loaded symbol `name`; the first one missing is the error.
template <class Fn>
void find(Fn& fn, const char* name, std::string& error) {
  fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, name));
  if (fn == nullptr && error.empty()) error = std::string("no ") + name + " in " + SEATORCH_BLAS_LIBRARIES;
}

// Opens each library of the ':'-separated list in order, its symbols visible to the next
// (a reference CBLAS needs its BLAS), then looks up the entry points. Never unloaded.
BlasLibrary open_blas() {
  BlasLibrary b;
  const std::string_view all(SEATORCH_BLAS_LIBRARIES);
  for (std::size_t begin = 0; begin <= all.size();) {
    const std::size_t end = std::min(all.find(':', begin), all.size());
    const std::string path(all.substr(begin, end - begin));
    if (!path.empty() && dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      const char* why = dlerror();  // names the file
      b.error = why != nullptr ? why : "cannot open " + path;
      return b;
    }
    begin = end + 1;
  }
  find(b.sgemm, "cblas_sgemm", b.error);
#if SEATORCH_BLAS_OPENBLAS
  find(b.get_config, "openblas_get_config", b.error);
  find(b.get_corename, "openblas_get_corename", b.error);
  find(b.set_num_threads, "openblas_set_num_threads", b.error);
#endif
  if (!b.error.empty()) b.sgemm = nullptr;
  return b;
}

const BlasLibrary& blas() {
  static const BlasLibrary b = open_blas();
  return b;
}

CBLAS_TRANSPOSE cblas_transpose(kernels::Transpose t) {
  return t == kernels::Transpose::kYes ? CblasTrans : CblasNoTrans;
}

// As many threads as seatorch's own loops use (core/parallel.hpp), so the two compare on
// the same cores; OpenBLAS would otherwise take every core.
void use_our_thread_count() {
#if SEATORCH_BLAS_OPENBLAS
  static std::size_t current = 0;  // the bench calls the BLAS from one thread only
  const std::size_t threads = core::threads();
  if (threads != current) {
    blas().set_num_threads(static_cast<int>(threads));
    current = threads;
  }
#endif
}

}  // namespace

std::string blas_name() {
  if (blas().sgemm == nullptr) return {};
#if SEATORCH_BLAS_OPENBLAS
  return std::string(blas().get_config()) + " (core " + blas().get_corename() + ")";
#else
  return "CBLAS";
#endif
}

std::string blas_core_name() {
  if (blas().sgemm == nullptr) return {};
#if SEATORCH_BLAS_OPENBLAS
  return blas().get_corename();
#else
  return {};
#endif
}

std::string blas_missing_reason() {
  return blas().error.empty() ? std::string() : "not available (" + blas().error + ")";
}

void blas_sgemm(const kernels::MatmulArgs& args) {
  if (blas().sgemm == nullptr) throw std::logic_error("blas_sgemm: BLAS " + blas_missing_reason());
  use_our_thread_count();
  const auto [m, n, k] = args.shape;
  blas().sgemm(CblasRowMajor, cblas_transpose(args.ta), cblas_transpose(args.tb), static_cast<int>(m),
               static_cast<int>(n), static_cast<int>(k), 1.0f, args.a, static_cast<int>(args.lda), args.b,
               static_cast<int>(args.ldb), args.accumulate ? 1.0f : 0.0f, args.c, static_cast<int>(args.ldc));
}

#else

std::string blas_name() { return {}; }

std::string blas_core_name() { return {}; }

std::string blas_missing_reason() { return "none in this build (install libopenblas-dev and reconfigure)"; }

void blas_sgemm(const kernels::MatmulArgs&) { throw std::logic_error("blas_sgemm: BLAS " + blas_missing_reason()); }

#endif

}  // namespace seatorch::bench
