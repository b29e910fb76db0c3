# Every dependency is a Debian 12 package. A missing one stops the configure step
# with a message naming the package to install (scripts/setup.sh installs them all).

function(seatorch_require_package cmake_name debian_package)
  find_package(${cmake_name} ${ARGN} QUIET)
  if(NOT ${cmake_name}_FOUND)
    message(FATAL_ERROR
      "seatorch needs ${cmake_name}: install the Debian package '${debian_package}' "
      "(sudo apt-get install ${debian_package}), or run ./scripts/setup.sh")
  endif()
endfunction()

seatorch_require_package(CLI11 libcli11-dev CONFIG)
seatorch_require_package(fmt libfmt-dev CONFIG)
seatorch_require_package(spdlog libspdlog-dev CONFIG)
seatorch_require_package(nlohmann_json nlohmann-json3-dev CONFIG)
seatorch_require_package(ZLIB zlib1g-dev)
find_package(Threads REQUIRED)  # core/parallel: std::jthread workers (part of libc)
seatorch_require_package(verilator verilator)
find_program(SEATORCH_VERILATOR verilator REQUIRED)  # the lint test runs the real front end

find_path(SEATORCH_STB_INCLUDE_DIR stb/stb_image.h)
if(NOT SEATORCH_STB_INCLUDE_DIR)
  message(FATAL_ERROR
    "seatorch needs stb_image.h: install the Debian package 'libstb-dev' "
    "(sudo apt-get install libstb-dev), or run ./scripts/setup.sh")
endif()

if(SEATORCH_BUILD_TESTS)
  seatorch_require_package(Catch2 catch2 2 CONFIG)
  # Catch2 v2 installs Catch.cmake (catch_discover_tests) beside its config file.
  list(APPEND CMAKE_MODULE_PATH ${Catch2_DIR})
endif()

# Optional: a CBLAS for `seatorch bench matmul` to compare against (Debian: libopenblas-dev).
# Only the bench uses it, and opens it at run time; without one the bench simply has no "blas"
# rows. OpenBLAS is preferred over the reference BLAS, which would be a poor yardstick.
if(NOT DEFINED BLA_VENDOR)
  set(BLA_VENDOR OpenBLAS)
  find_package(BLAS QUIET)
  unset(BLA_VENDOR)
endif()
if(NOT BLAS_FOUND)
  find_package(BLAS QUIET)
endif()
find_path(SEATORCH_CBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas)
# The bench opens the BLAS at run time (src/bench/blas_reference.cpp): the library files of
# BLAS_LIBRARIES, ':'-separated; its linker flags (-lm, -lpthread) are not files to open.
set(SEATORCH_BLAS_FILES "")
foreach(lib IN LISTS BLAS_LIBRARIES)
  if(IS_ABSOLUTE "${lib}" AND EXISTS "${lib}")
    list(APPEND SEATORCH_BLAS_FILES "${lib}")
  endif()
endforeach()
string(REPLACE ";" ":" SEATORCH_BLAS_FILES "${SEATORCH_BLAS_FILES}")
if(BLAS_FOUND AND SEATORCH_CBLAS_INCLUDE_DIR AND SEATORCH_BLAS_FILES)
  set(SEATORCH_HAVE_BLAS ON)
  include(CheckSymbolExists)
  set(CMAKE_REQUIRED_INCLUDES ${SEATORCH_CBLAS_INCLUDE_DIR})
  set(CMAKE_REQUIRED_LIBRARIES ${BLAS_LIBRARIES})
  check_symbol_exists(openblas_set_num_threads cblas.h SEATORCH_BLAS_OPENBLAS)
  set(SEATORCH_BLAS_IS_OPENBLAS 0)
  if(SEATORCH_BLAS_OPENBLAS)
    set(SEATORCH_BLAS_IS_OPENBLAS 1)
  endif()
  unset(CMAKE_REQUIRED_INCLUDES)
  unset(CMAKE_REQUIRED_LIBRARIES)
  message(STATUS "seatorch bench: comparing against BLAS ${SEATORCH_BLAS_FILES}")
else()
  set(SEATORCH_HAVE_BLAS OFF)
  message(STATUS "seatorch bench: no CBLAS found (libopenblas-dev); the bench will run without it")
endif()
