/* Switchyard — autotuning (part of the C API; docs/autotune.md).
 *
 * Part of the C API: switchyard/switchyard.h includes it, and the rules
 * written at the top of that header (versioning, structs, handles,
 * errors, threads, per-function sections, strings) hold here too.
 * Compiles on its own (C99 or C++), but programs include the umbrella,
 * switchyard/switchyard.h.
 */
#ifndef SWITCHYARD_AUTOTUNE_H_
#define SWITCHYARD_AUTOTUNE_H_

#include "switchyard/base.h"
#include "switchyard/op.h" /* sy_op_call_args_t */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Autotuning (since 1.1; docs/autotune.md) ---------------------------- */

/* Where several kernels (of several plugins, or one kernel's variants) can
 * serve a call, the autotuner measures them for the call's shape bucket on
 * this machine and keeps the winner (a verdict) in a SQLite cache shared by
 * every process (SWITCHYARD_CACHE_DIR, else $XDG_CACHE_HOME/switchyard,
 * else ~/.cache/switchyard). Verdicts are folded into the dispatch tables:
 * calls never touch the cache, and these functions are never on a call's
 * path. Reports and summaries are JSON documents (docs/c-api.md lists their
 * fields); new fields may be added in later minors. */

/* Switches the context's autotune mode by name: "off" (no verdicts),
 * "cached" (the cache's verdicts for this machine and these plugins; no
 * call is measured — the default, unless SWITCHYARD_AUTOTUNE says
 * otherwise) or "on" (as cached, and the first call of an untuned bucket
 * is measured on the calling thread and its verdict stored). Case does not
 * matter. Errors: INVALID_ARGUMENT for another name (the message lists the
 * three); a cache that cannot be read is logged as a warning and the mode
 * switched regardless. Thread-safety: thread-safe. Since: 1.1. */
SY_API sy_status_code_t sy_context_set_autotune(sy_context_t context,
                                                const char* mode);

/* The context's autotune mode: "off", "cached" or "on" (static storage).
 * Since: 1.1. */
SY_API sy_status_code_t sy_context_autotune(sy_context_t context,
                                            const char** out_mode);

/* Flags of sy_op_tune and sy_context_tune_cases. */
enum {
  /* Measure even where the cache holds a verdict. The cache keeps its
   * first verdict (first writer wins), so a forced measurement only
   * reports. */
  SY_TUNE_FORCE = 1,
};

/* Tunes the shape bucket of one call now, on this thread, whatever the
 * mode: the cache's verdict when it has one (unless SY_TUNE_FORCE), else
 * every candidate is checked against a reference and timed, the winner is
 * stored and — unless the mode is "off" — used by later calls of that
 * bucket. `args` is as sy_op_explain_ex takes it; outputs are ignored and
 * the route must be SY_ROUTE_DEFAULT. *out_json is the report:
 *   {"op", "device", "bucket", "key_hash", "measured": bool,
 *    "winner": {"kernel", "variant", "variant_name", "time_ns"},
 *    "source": "measured" | "imported from …", "written", "applied",
 *    "note", "candidates": [{"candidate", "outcome", "median_ns",
 *    "samples", "error", "note"}], "reference", "rounds", "elapsed_ms"}
 * ("candidates" from the stored measurement when the cache answered).
 * Lifetime: until the next Switchyard call on this thread.
 * Errors: those sy_op_explain_ex returns for the arguments; INVALID_ARGUMENT
 * for another route or unknown flags; NOT_FOUND when no kernel serves the
 * call's dtypes on its device (nothing to tune); FAILED_PRECONDITION when
 * every candidate declines the bucket or none matches the reference (the
 * message says why for each). Since: 1.1. */
SY_API sy_status_code_t sy_op_tune(const sy_op_call_args_t* args, int32_t flags,
                                   const char** out_json);

/* Called by sy_context_tune_cases after each case, on the calling thread:
 * `done` of `total` cases, and that case's row (as in the result). */
typedef void (*sy_tune_progress_fn)(void* user_data, int32_t done, int32_t total,
                                    const char* row_json);

/* Runs the cases of a JSON document ({"cases": [{"op", "device", "inputs":
 * [{"dtype", "shape", "layout"}], "attrs", "list_sizes"}]}, docs/autotune.md
 * "switchyard tune") through sy_op_tune's work, on random inputs seeded by
 * the case's position; a failed case does not stop the rest. *out_json:
 *   {"rows": [{"case": "matmul f32[512, 512] f32[512, 512] on cpu",
 *              "ok": bool, "error": "…" | absent, "seconds",
 *              "report": {…sy_op_tune's…} | absent}]}
 * `progress` may be NULL. Lifetime: until the next Switchyard call on this
 * thread. Errors: INVALID_ARGUMENT naming the case and field when the
 * document is not a case list (nothing runs then). Since: 1.1. */
SY_API sy_status_code_t sy_context_tune_cases(sy_context_t context,
                                              const char* cases_json, int32_t flags,
                                              sy_tune_progress_fn progress,
                                              void* user_data,
                                              const char** out_json);

/* Writes the cache's verdicts measured on this context's devices (every
 * device's with `all_devices` = 1) to the file `path`, atomically (a
 * temporary file, then rename), as JSON that sy_context_autotune_import
 * reads; *out_count (may be NULL) is how many. Errors: PERMISSION_DENIED
 * when the file cannot be written; a cache that cannot be read. Since: 1.1. */
SY_API sy_status_code_t sy_context_autotune_export(sy_context_t context,
                                                   const char* path,
                                                   int32_t all_devices,
                                                   int64_t* out_count);

/* Reads an export and stores each verdict that applies here (the device
 * fingerprint of one of this context's device types, the same plugins and
 * candidate kernels); the others are ignored, each with a reason. Keys the
 * cache holds keep their verdicts. *out_json is the record, which the cache
 * also keeps: {"file", "imported", "present", "ignored", "reasons": […]}.
 * Lifetime: until the next Switchyard call on this thread.
 * Errors: NOT_FOUND when the file cannot be read; INVALID_ARGUMENT when it
 * is not an export (not JSON, another format, a newer version, too large).
 * Since: 1.1. */
SY_API sy_status_code_t sy_context_autotune_import(sy_context_t context,
                                                   const char* path,
                                                   const char** out_json);

/* What the cache holds, as JSON: {"mode", "path" ("" in memory), "exists",
 * "file_bytes", "verdicts", "applied", "stale", "devices": [{"fingerprint",
 * "here": bool, "verdicts", "ops": {op: count}}], "imports": [records],
 * "entries": [{"op", "dtypes", "bucket", "device", "kernel", "variant",
 * "variant_name", "time_ns", "source", "created"}]} ("entries": this
 * context's devices' verdicts). Lifetime: until the next Switchyard call on
 * this thread. Errors: a cache that cannot be read. Since: 1.1. */
SY_API sy_status_code_t sy_context_autotune_info_json(sy_context_t context,
                                                      const char** out_json);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* SWITCHYARD_AUTOTUNE_H_ */
