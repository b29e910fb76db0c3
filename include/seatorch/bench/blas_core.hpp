// Whether the BLAS yardstick is a fair one on this CPU: does it run kernels for the widest
// vector ISA the CPU has? Debian's OpenBLAS 0.3.21 does not know some newer CPUs (Intel Xeons
// of these sessions among them) and falls back to its oldest x86-64 kernels, "Prescott" (SSE3,
// about a fifth of the CPU's FMA peak); a ratio against those reads as if seatorch beat a real
// BLAS fourfold. With OPENBLAS_CORETYPE set to a core of the CPU's ISA, OpenBLAS runs the
// right kernels; it reads that variable when it is loaded, so only a new process can change
// it (prefer_fitting_blas()).
// Deliberately not here: BLAS libraries other than OpenBLAS (their core is not known: they
// are taken as fair) and non-x86 CPUs (one ISA tier: always fair).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace seatorch::bench {

// The vector ISA tiers that matter for sgemm, oldest first.
enum class VectorIsa { kSse, kAvx, kAvx2, kAvx512 };

std::string_view isa_name(VectorIsa isa);

// The tier of an OpenBLAS core name (openblas_get_corename(), case-insensitive: "Prescott",
// "Haswell", "SkylakeX", "Zen", ...); nullopt for a name this table does not know.
std::optional<VectorIsa> openblas_core_isa(std::string_view core);

// The widest tier this CPU runs (x86: CPUID and XGETBV through __builtin_cpu_supports).
VectorIsa cpu_isa();

struct BlasCore {
  std::string name;              // OpenBLAS's core; empty for another BLAS or none
  std::optional<VectorIsa> isa;  // its kernels' tier, when known
  VectorIsa cpu = VectorIsa::kSse;
  // The OPENBLAS_CORETYPE that gives this CPU its own tier ("SkylakeX", "Haswell",
  // "Sandybridge"), when the core's tier is below it; empty when the core fits.
  std::string fitting;

  [[nodiscard]] bool fair() const { return fitting.empty(); }
  // One line on why a ratio against this BLAS would not be fair and how to get a fair one;
  // empty when fair().
  [[nodiscard]] std::string unfair_reason() const;
};

// The core the linked OpenBLAS chose, judged against this CPU.
BlasCore blas_core();
// The same judgement for a given core name and CPU tier (what blas_core() applies; tests).
BlasCore judge_blas_core(std::string_view core, VectorIsa cpu);

// When the BLAS core is unfair and OPENBLAS_CORETYPE is not set (by the user, or by an
// earlier call in this process's ancestry), runs this command again in place (execv of
// /proc/self/exe with the same arguments) with OPENBLAS_CORETYPE set to the fitting core, so
// that every BLAS figure the command prints is of the right kernels. Returns only when it
// does not re-run: then `note` holds why, for the caller to print when not empty.
void prefer_fitting_blas(std::string& note);

// In a command prefer_fitting_blas() re-ran: the core OpenBLAS had chosen on its own
// ("Prescott"); empty otherwise.
std::string blas_rerun_from();

}  // namespace seatorch::bench
