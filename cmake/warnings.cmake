# One place for the project's compiler policy: warnings -Wall -Wextra -Wpedantic, kept clean
# (SEATORCH_WERROR, on in the presets, makes them errors), and the sanitizers of the asan
# preset (SEATORCH_SANITIZE, e.g. "address,undefined"), applied to every target.
option(SEATORCH_WERROR "Treat compiler warnings as errors" OFF)
set(SEATORCH_SANITIZE "" CACHE STRING "Sanitizers to build with, e.g. address,undefined")

if(SEATORCH_SANITIZE)
  add_compile_options(-fsanitize=${SEATORCH_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${SEATORCH_SANITIZE})
endif()

function(seatorch_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(SEATORCH_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  if(SEATORCH_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12's -Wmaybe-uninitialized misfires inside libstdc++'s <regex> (used by Catch2)
    # once ASan instrumentation changes inlining; the sanitizer itself checks this for real.
    target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
  endif()
endfunction()
