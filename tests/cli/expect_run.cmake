# Runs COMMAND with ARGS (a ;-list) and checks its exit code and its combined output.
# Usage: cmake -DCOMMAND=... -DARGS=... -DEXPECTED_EXIT=N -DEXPECTED_REGEX=... -P expect_run.cmake
# With -DSTDOUT_FILE=PATH stdout goes to that file instead (e.g. /dev/full) and only stderr is checked.
if(DEFINED STDOUT_FILE)
  execute_process(COMMAND ${COMMAND} ${ARGS}
    RESULT_VARIABLE exit_code OUTPUT_FILE ${STDOUT_FILE} ERROR_VARIABLE err)
  set(out "")
else()
  execute_process(COMMAND ${COMMAND} ${ARGS}
    RESULT_VARIABLE exit_code OUTPUT_VARIABLE out ERROR_VARIABLE err)
endif()
set(all "${out}${err}")
if(NOT exit_code STREQUAL EXPECTED_EXIT)
  message(FATAL_ERROR "seatorch ${ARGS}: exit code ${exit_code}, expected ${EXPECTED_EXIT}\n${all}")
endif()
if(NOT all MATCHES "${EXPECTED_REGEX}")
  message(FATAL_ERROR "seatorch ${ARGS}: output does not match '${EXPECTED_REGEX}':\n${all}")
endif()
string(REGEX MATCHALL "\n" newlines "${err}")
list(LENGTH newlines err_lines)
if(EXPECTED_EXIT GREATER 0 AND NOT err_lines EQUAL 1)
  message(FATAL_ERROR "seatorch ${ARGS}: an error must be one line on stderr, got ${err_lines}:\n${err}")
endif()
message(STATUS "ok: exit ${exit_code}")
