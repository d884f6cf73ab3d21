/* Switchyard — what every area of the C API builds on: the API version,
 * SY_API, the handle types, the library's version, the last error, and
 * dtype names.
 *
 * Part of the C API: switchyard/switchyard.h includes it, and the rules
 * written at the top of that header (versioning, structs, handles,
 * errors, threads, per-function sections, strings) hold here too.
 * Compiles on its own (C99 or C++), but programs include the umbrella,
 * switchyard/switchyard.h.
 */
#ifndef SWITCHYARD_BASE_H_
#define SWITCHYARD_BASE_H_

#include <stddef.h>
#include <stdint.h>

#include "switchyard/common.h"
#include "switchyard/plugin/version.h" /* SY_STRUCT_HAS, SY_STRUCT_SIZE */

#ifdef __cplusplus
extern "C" {
#endif

#define SY_API_VERSION_MAJOR 1
#define SY_API_VERSION_MINOR 2

#if defined(_WIN32)
#define SY_API __declspec(dllexport)
#else
#define SY_API __attribute__((visibility("default")))
#endif

/* ---- Handles ------------------------------------------------------------ */
typedef struct sy_context_token_t* sy_context_t;
typedef struct sy_device_token_t* sy_device_handle_t;
typedef struct sy_op_token_t* sy_op_t;
typedef struct sy_tensor_token_t* sy_tensor_t;

/* ===== Version and errors ================================================ */

/* The API version of the loaded library (SY_API_VERSION_* it was built
 * with). Either pointer may be NULL.
 * Thread-safety: thread-safe. Errors: none. Since: 1.0. */
SY_API sy_status_code_t sy_api_version(uint32_t* out_major,
                                       uint32_t* out_minor);

/* The plugin ABI (plugin.h) this library hosts: the SY_PLUGIN_ABI_MAJOR
 * and the highest SY_PLUGIN_ABI_MINOR it speaks. Either pointer may be
 * NULL. Thread-safety: thread-safe. Errors: none. Since: 1.1. */
SY_API sy_status_code_t sy_plugin_abi_version(uint32_t* out_major,
                                              uint32_t* out_minor);

/* The library's release version, e.g. "0.1.0".
 * Lifetime: static. Errors: none (does not touch the last error).
 * Since: 1.0. */
SY_API const char* sy_library_version(void);

/* The code of the calling thread's last Switchyard call (SY_STATUS_OK if
 * none yet). Does not itself reset anything.
 * Thread-safety: per thread. Errors: none. Since: 1.0. */
SY_API sy_status_code_t sy_last_error_code(void);

/* The message of the calling thread's last Switchyard call: "" after a
 * success, never NULL.
 * Lifetime: until the next Switchyard call on this thread (this one and
 * sy_last_error_code excepted). Thread-safety: per thread. Errors: none.
 * Since: 1.0. */
SY_API const char* sy_last_error_message(void);

/* "OK", "INVALID_ARGUMENT", …; "UNKNOWN_CODE" for values outside the enum.
 * Lifetime: static. Errors: none (does not touch the last error).
 * Since: 1.0. */
SY_API const char* sy_status_code_name(sy_status_code_t code);

/* ===== Data types ======================================================== */

/* "f32", "bf16", "bool", …; "invalid" for anything that is not one of the
 * nine tensor dtypes.
 * Lifetime: static. Errors: none (does not touch the last error).
 * Since: 1.0. */
SY_API const char* sy_dtype_name(sy_dtype_t dtype);

/* Parses "f32", "float32", "float", "bfloat16", "int64", "bool", ….
 * Errors: INVALID_ARGUMENT for NULL arguments or an unknown name.
 * Thread-safety: thread-safe. Since: 1.0. */
SY_API sy_status_code_t sy_dtype_from_name(const char* name,
                                           sy_dtype_t* out_dtype);

/* Bytes per element: 4 for f32, 1 for bool; 0 for an invalid dtype.
 * Errors: none (does not touch the last error). Since: 1.0. */
SY_API size_t sy_dtype_size(sy_dtype_t dtype);

#ifdef __cplusplus
}  /* extern "C" */

static_assert(sizeof(void*) == 8, "the Switchyard C API needs 64-bit handles");
#endif

#endif  /* SWITCHYARD_BASE_H_ */
