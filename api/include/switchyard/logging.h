/* Switchyard — logging and tracing (part of the C API).
 *
 * Part of the C API: switchyard/switchyard.h includes it, and the rules
 * written at the top of that header (versioning, structs, handles,
 * errors, threads, per-function sections, strings) hold here too.
 * Compiles on its own (C99 or C++), but programs include the umbrella,
 * switchyard/switchyard.h.
 */
#ifndef SWITCHYARD_LOGGING_H_
#define SWITCHYARD_LOGGING_H_

#include "switchyard/base.h"
#include "switchyard/plugin/types.h" /* sy_log_level_t */

#ifdef __cplusplus
extern "C" {
#endif

/* ===== Logging =========================================================== */
/* One log per process: plugin load warnings, declines, and at "debug" one
 * line per op call saying how it was resolved. By default lines go to
 * stderr and the level comes from SWITCHYARD_LOG (default "warning"). The
 * levels, from quiet to chatty: "off", "error", "warning", "info",
 * "debug". */

/* Sets the level by name (case-insensitive). Takes effect at once, for
 * every context.
 * Errors: INVALID_ARGUMENT for NULL or an unknown name (the message lists
 * the levels). Since: 1.1. */
SY_API sy_status_code_t sy_log_set_level(const char* level);

/* The current level's name ("warning", …).
 * Lifetime: static. Errors: none (does not touch the last error).
 * Since: 1.1. */
SY_API const char* sy_log_level(void);

/* Receives log lines: `level` is a sy_log_level_t (plugin.h:
 * SY_LOG_ERROR 0 … SY_LOG_DEBUG 3), `message` the line without prefix or
 * newline, valid during the call. Called on whichever thread logs, one call
 * at a time (lines never interleave); it must return quickly and must not
 * call into Switchyard (it may run while the library holds a lock). */
typedef void (*sy_log_fn)(void* user_data, int32_t level, const char* message);

/* Sends log lines to `callback` (with `user_data`) instead of stderr; NULL
 * restores stderr. The level still filters first.
 * Thread-safety: thread-safe; a line being logged on another thread goes
 * to the old or the new destination. Errors: none. Since: 1.1. */
SY_API sy_status_code_t sy_log_set_callback(sy_log_fn callback, void* user_data);

/* ===== Tracing =========================================================== */

/* Starts writing a Chrome trace-event file (chrome://tracing, Perfetto) at
 * `path`: one event per op call (op, kernel, plugin, device, dtypes,
 * shapes, host and device time), plugin loads and allocations on tracks of
 * their own (docs/tracing.md). SWITCHYARD_TRACE=path does the same from
 * the start of the process.
 * Errors: INVALID_ARGUMENT for NULL; FAILED_PRECONDITION when a trace is
 * already being written; the file system's error; UNIMPLEMENTED in a build
 * without tracing. Since: 1.1. */
SY_API sy_status_code_t sy_trace_start(const char* path);

/* Finishes and closes the trace file sy_trace_start (or SWITCHYARD_TRACE)
 * opened. Errors: FAILED_PRECONDITION when no trace is being written.
 * Since: 1.1. */
SY_API sy_status_code_t sy_trace_stop(void);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* SWITCHYARD_LOGGING_H_ */
