// Judging the BLAS yardstick: OpenBLAS core names map to the ISA their kernels use, a core
// below the CPU's ISA is unfair with the fitting OPENBLAS_CORETYPE named, and one at or above
// it (or an unknown BLAS) is fair. The oracle is OpenBLAS's own core list (0.3.21, x86-64).
#include "seatorch/bench/blas_core.hpp"

#include <catch2/catch.hpp>

namespace b = seatorch::bench;

TEST_CASE("OpenBLAS cores map to the ISA of their kernels", "[bench]") {
  CHECK(b::openblas_core_isa("Prescott") == b::VectorIsa::kSse);
  CHECK(b::openblas_core_isa("NEHALEM") == b::VectorIsa::kSse);
  CHECK(b::openblas_core_isa("Sandybridge") == b::VectorIsa::kAvx);
  CHECK(b::openblas_core_isa("Zen") == b::VectorIsa::kAvx2);  // Zen runs Haswell's kernels
  CHECK(b::openblas_core_isa("Haswell") == b::VectorIsa::kAvx2);
  CHECK(b::openblas_core_isa("SkylakeX") == b::VectorIsa::kAvx512);
  CHECK(b::openblas_core_isa("Cooperlake") == b::VectorIsa::kAvx512);
  CHECK_FALSE(b::openblas_core_isa("Pentium9000").has_value());
}

TEST_CASE("a BLAS core below the CPU's ISA is unfair and names the core that fits", "[bench]") {
  const b::BlasCore prescott = b::judge_blas_core("Prescott", b::VectorIsa::kAvx512);
  CHECK_FALSE(prescott.fair());
  CHECK(prescott.fitting == "SkylakeX");
  CHECK_THAT(prescott.unfair_reason(),
             Catch::Contains("OpenBLAS runs its Prescott kernels (SSE) on this AVX-512 CPU") &&
                 Catch::Contains("OPENBLAS_CORETYPE=SkylakeX"));
  CHECK(b::judge_blas_core("Sandybridge", b::VectorIsa::kAvx2).fitting == "Haswell");
  CHECK(b::judge_blas_core("Cooperlake", b::VectorIsa::kAvx512).fair());
  CHECK(b::judge_blas_core("Haswell", b::VectorIsa::kAvx2).fair());
  CHECK(b::judge_blas_core("SkylakeX", b::VectorIsa::kAvx2).fair());  // above the CPU: it would not run at all
  CHECK(b::judge_blas_core("", b::VectorIsa::kAvx512).fair());        // not OpenBLAS: nothing to judge
  CHECK(b::judge_blas_core("Pentium9000", b::VectorIsa::kAvx512).fair());
  CHECK(b::judge_blas_core("Prescott", b::VectorIsa::kAvx512).unfair_reason() != "");
  CHECK(b::judge_blas_core("Zen", b::VectorIsa::kAvx2).unfair_reason().empty());
}
