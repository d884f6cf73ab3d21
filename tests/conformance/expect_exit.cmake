# Runs COMMAND (a ;-list) and checks its exit status and output:
#   cmake -DCOMMAND="prog;arg…" -DEXPECT_EXIT=1 -DEXPECT_REGEX="…"
#         [-DEXPECT_REGEX2="…"] -P expect_exit.cmake
# stdout and stderr are matched together; the output is printed either way
# so a failing test shows what the tool said.
execute_process(COMMAND ${COMMAND}
                RESULT_VARIABLE status
                OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
message("${out}${err}")
if(NOT "${status}" STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "exit status ${status}, expected ${EXPECT_EXIT}")
endif()
foreach(regex IN ITEMS "${EXPECT_REGEX}" "${EXPECT_REGEX2}")
  if(NOT "${regex}" STREQUAL "" AND NOT "${out}${err}" MATCHES "${regex}")
    message(FATAL_ERROR "the output does not match '${regex}'")
  endif()
endforeach()
