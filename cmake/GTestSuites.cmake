# switchyard_add_test_suites(<target> [TEST_PREFIX <prefix>] [TIMEOUT <s>])
#
# Registers one ctest test per GoogleTest *suite* of <target> — e.g.
# "op_harness.Cpu/Binary", run as `<target> --gtest_filter=Cpu/Binary.*` —
# where gtest_discover_tests registers one per case. For the parametrized
# suites with hundreds of small cases each (the op harness on cpu and on
# cpu+onednn, the cpu plugin's kernel sweeps: ~2,700 cases), a process per
# case spent more time starting processes, loading plugins and, under
# AddressSanitizer, checking for leaks at exit than running the cases. A
# failure still names its case in the test's output; `ctest -R <prefix>`
# still selects the program, and `<target> --gtest_filter=…` runs one case.
#
# Like gtest_discover_tests, the list is read from the built program after
# each build (POST_BUILD) into a file ctest includes.
set(SWITCHYARD_GTEST_SUITES_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/GTestSuitesList.cmake")

function(switchyard_add_test_suites target)
  cmake_parse_arguments(arg "" "TEST_PREFIX;TIMEOUT" "" ${ARGN})
  set(ctest_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites.cmake")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND}
            -D "TEST_EXECUTABLE=$<TARGET_FILE:${target}>"
            -D "TEST_PREFIX=${arg_TEST_PREFIX}"
            -D "TEST_TIMEOUT=${arg_TIMEOUT}"
            -D "CTEST_FILE=${ctest_file}"
            -P "${SWITCHYARD_GTEST_SUITES_SCRIPT}"
    BYPRODUCTS "${ctest_file}"
    VERBATIM)
  # What ctest includes: the list once the program is built, else one test
  # that says so (as gtest_discover_tests does), so that ctest still runs
  # in a tree where only some targets were built.
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_suites_include.cmake")
  file(WRITE "${include_file}"
    "if(EXISTS \"${ctest_file}\")\n"
    "  include(\"${ctest_file}\")\n"
    "else()\n"
    "  add_test(${arg_TEST_PREFIX}${target}_NOT_BUILT ${target}_NOT_BUILT)\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
