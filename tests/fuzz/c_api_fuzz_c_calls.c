/* Calls only a C program makes legally: an enum argument whose value is
 * none of the enum's (C enums are integers; in C++ such a value is
 * undefined behaviour at the caller). The header promises an answer for
 * them too, e.g. "UNKNOWN_CODE for values outside the enum". */
#include "c_api_fuzz_c_calls.h"

const char* sy_fuzz_status_code_name(int32_t code) {
  return sy_status_code_name((sy_status_code_t)code);
}
