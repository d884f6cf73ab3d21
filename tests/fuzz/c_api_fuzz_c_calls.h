// C API calls made from C (c_api_fuzz_c_calls.c): what a C++ caller cannot
// pass without undefined behaviour of its own.
#ifndef SWITCHYARD_TESTS_FUZZ_C_API_FUZZ_C_CALLS_H_
#define SWITCHYARD_TESTS_FUZZ_C_API_FUZZ_C_CALLS_H_

#include <stdint.h>

#include "switchyard/switchyard.h"

#ifdef __cplusplus
extern "C" {
#endif

// sy_status_code_name with any integer as the code.
const char* sy_fuzz_status_code_name(int32_t code);

#ifdef __cplusplus
}
#endif

#endif  // SWITCHYARD_TESTS_FUZZ_C_API_FUZZ_C_CALLS_H_
