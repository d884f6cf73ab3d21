# Writes CTEST_FILE: one add_test per GoogleTest suite of TEST_EXECUTABLE
# (cmake/GTestSuites.cmake says why). Run by the target's POST_BUILD step:
#   cmake -D TEST_EXECUTABLE=… -D TEST_PREFIX=… -D TEST_TIMEOUT=…
#         -D CTEST_FILE=… -P GTestSuitesList.cmake
cmake_minimum_required(VERSION 3.25)

execute_process(COMMAND "${TEST_EXECUTABLE}" --gtest_list_tests
                OUTPUT_VARIABLE listing RESULT_VARIABLE status
                ERROR_VARIABLE errors TIMEOUT 60)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "cannot list the tests of ${TEST_EXECUTABLE} "
                      "(exit ${status}): ${errors}")
endif()

# Suite lines start in column 0 and end with "." (optionally followed by
# "  # TypeParam = …"); case lines are indented.
string(REPLACE "\n" ";" lines "${listing}")
set(content "")
set(count 0)
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ #][^ ]*)\\.( |$)")
    set(suite "${CMAKE_MATCH_1}")
    set(name "${TEST_PREFIX}${suite}")
    string(APPEND content
      "add_test([=[${name}]=] [=[${TEST_EXECUTABLE}]=] [=[--gtest_filter=${suite}.*]=])\n")
    if(TEST_TIMEOUT)
      string(APPEND content
        "set_tests_properties([=[${name}]=] PROPERTIES TIMEOUT ${TEST_TIMEOUT})\n")
    endif()
    math(EXPR count "${count} + 1")
  endif()
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} lists no test suites")
endif()
file(WRITE "${CTEST_FILE}" "${content}")
