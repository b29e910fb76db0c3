# The matmul kernels beyond the reference and the dispatch point: the portable driver, the
# kernel registry, the sparse rows and product's reference, and the ISA kernels of the
# target architecture. Shared by the main build
# and the AArch64 cross test (tests/cross/), so both compile exactly the same kernel code.
#
# Only the ISA files get ISA flags; everything else is built for the baseline target, and
# the registry picks a kernel at run time by CPU feature detection. No -march=native.

# seatorch_add_kernel_sources(TARGET ROOT): adds the sources under ROOT/src/kernels.
function(seatorch_add_kernel_sources target root)
  set(dir ${root}/src/kernels)
  target_sources(${target} PRIVATE
    ${dir}/cpu_isa.cpp
    ${dir}/cpu_vendor.cpp
    ${dir}/gemm_support.cpp
    ${dir}/blocked.cpp
    ${dir}/kernel_registry.cpp
    ${dir}/sparse_rows.cpp
    ${dir}/sparse_matmul_ref.cpp
  )
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
    target_sources(${target} PRIVATE ${dir}/x86/avx2.cpp ${dir}/x86/avx512.cpp)
    set_source_files_properties(${dir}/x86/avx2.cpp PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma")
    # Loops on 64-byte lines: the tile's depth loop had landed 56 bytes into one after the
    # fused epilogue grew the function, and 256^3 and 512^3 ran 1-2 % slower (DECISIONS 82).
    set_source_files_properties(${dir}/x86/avx512.cpp PROPERTIES COMPILE_OPTIONS "-mavx512f;-falign-loops=64")
  elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$")
    # NEON is part of the AArch64 baseline: no flags needed.
    target_sources(${target} PRIVATE ${dir}/neon/neon.cpp)
  endif()
endfunction()
