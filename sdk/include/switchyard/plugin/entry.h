/* Switchyard plugin ABI — the entry point and the two tables:
 * sy_plugin_init, the host's table (registration, errors, log) and the
 * plugin's table.
 *
 * Part of the plugin ABI: switchyard/plugin.h includes it, and the rules
 * written at the top of that header (versioning, structs, Note [Extension
 * chain], Note [Frozen value types], ownership and lifetime, threads,
 * errors) hold here too. Pure C; compiles on its own (C99 or C++), but
 * plugins include the umbrella, switchyard/plugin.h.
 */
#ifndef SWITCHYARD_PLUGIN_ENTRY_H_
#define SWITCHYARD_PLUGIN_ENTRY_H_

#include <stddef.h>
#include <stdint.h>

#include "switchyard/plugin/device.h"
#include "switchyard/plugin/kernels.h"
#include "switchyard/plugin/options.h"
#include "switchyard/plugin/shape.h"
#include "switchyard/plugin/types.h"
#include "switchyard/plugin/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The one exported symbol's name, for hosts that look it up by string.
 * Since: 1.0. */
#define SY_PLUGIN_INIT_SYMBOL "sy_plugin_init"

#if defined(_WIN32)
#define SY_PLUGIN_EXPORT __declspec(dllexport)
#else
#define SY_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* ---- The host's table ----------------------------------------------------
 * One table per process, passed to sy_plugin_init and to `load`; it stays
 * valid for as long as the plugin library is loaded, so a plugin may keep
 * the pointer (for error_create and log from kernels). Several runtimes in
 * one process share one loaded copy of a plugin: sy_plugin_init runs once
 * per process, `load` once per runtime (each with its own context), and
 * `unload` once, when the last runtime lets the library go.
 * The register_* slots and option_get accept only the context of a `load`
 * in progress; any other returns FAILED_PRECONDITION. Since: 1.0 (slots
 * marked 1.1 are there when the host's abi_minor is >= 1; check with
 * SY_STRUCT_HAS as always). */
typedef struct sy_host_api_t {
  size_t struct_size;
  const sy_extension_t* extension;
  uint32_t abi_major; /* == SY_PLUGIN_ABI_MAJOR of the host */
  uint32_t abi_minor; /* highest minor the host speaks */
  const char* host_version; /* "0.1.0"; lives as long as the table */

  /* Creates an error; the message is copied. Never returns NULL (if memory
   * runs out a static out-of-memory error comes back). Thread-safe. */
  sy_error_t* (*error_create)(int32_t code /* sy_status_code_t */,
                              const char* message);
  /* Destroys an error the plugin created and will not return. */
  void (*error_destroy)(sy_error_t* error);
  /* Writes a line to the host's log (SWITCHYARD_LOG). During `load` pass
   * its context and the line is prefixed with the plugin's name; at other
   * times pass NULL and name yourself in the message. Thread-safe. */
  void (*log)(sy_host_context_t* context, int32_t level /* sy_log_level_t */,
              const char* message);

  sy_error_t* (*register_schema)(sy_host_context_t* context,
                                 const sy_schema_desc_t* schema);
  sy_error_t* (*register_kernel)(sy_host_context_t* context,
                                 const sy_kernel_desc_t* kernel);
  sy_error_t* (*register_device)(sy_host_context_t* context,
                                 const sy_device_api_t* device);

  /* ---- 1.1 ---- */
  /* The value of the plugin's declared option `name` for this load (the
   * user's, or the declared default). Only during `load`, with its context.
   * Errors: NOT_FOUND for a name the plugin did not declare. Since: 1.1. */
  sy_error_t* (*option_get)(sy_host_context_t* context, const char* name,
                            sy_option_value_t* out_value);
  /* Scratch memory for the kernel call `host_call` (the call's
   * sy_kernel_call_t.host_call): `size` bytes of the call's device, aligned
   * to 256, from the host's caching allocator, so a kernel never allocates
   * per call. Contents are undefined. The memory stays valid for the work
   * the kernel enqueues on the call's stream: the host returns it to the
   * allocator when the kernel returns, and the allocator hands a block out
   * again only in stream order. A kernel may ask more than once per call
   * (each a new block); size 0 gives NULL. Thread-safe.
   * Errors: RESOURCE_EXHAUSTED when the device is out of memory;
   * INVALID_ARGUMENT for a host_call that is not a call in progress.
   * Since: 1.1. */
  sy_error_t* (*kernel_workspace)(sy_call_context_t* host_call, size_t size,
                                  void** out_ptr);
} sy_host_api_t;

/* ---- The plugin's table -------------------------------------------------- */

/* sy_plugin_api_t.flags. Since: 1.1. */
/* The library is never closed (dlclose), also when its last runtime lets it
 * go: for a plugin whose dependencies keep threads or process-wide state
 * until exit (OpenMP, a GPU runtime). `unload` still runs. */
#define SY_PLUGIN_FLAG_RESIDENT 1u

/* What sy_plugin_init returns. Since: 1.0 (flags, options: 1.1). */
typedef struct sy_plugin_api_t {
  size_t struct_size;
  const sy_extension_t* extension;
  uint32_t abi_major; /* must equal the host's */
  uint32_t abi_minor; /* the minor this plugin uses; <= host's abi_minor */
  const char* name;    /* must equal the manifest's "name"; copied */
  const char* version; /* the plugin's own version, e.g. "1.2.0"; copied */
  /* Registers devices, schemas and kernels through `host`'s register_*
   * slots, passing `context`. Required. Called once per runtime that loads
   * the plugin. An error here withdraws everything this call registered;
   * nothing registered becomes visible before `load` returns success. */
  sy_error_t* (*load)(const sy_host_api_t* host, sy_host_context_t* context);
  /* Optional. Called once before the library is closed, after every
   * runtime has released every object the plugin created. Must end the
   * threads the plugin started (see "Threads" above). */
  void (*unload)(void);
  /* ---- 1.1 ---- */
  uint32_t flags;       /* SY_PLUGIN_FLAG_* */
  int32_t num_options;  /* entries in `options` */
  /* The options the plugin takes (see "Plugin options"); may be NULL. Lives
   * as long as this table. */
  const sy_plugin_option_t* options;
} sy_plugin_api_t;

/* The entry point every plugin exports, and the only symbol it exports.
 * Receives the host's table; stores a pointer to the plugin's static table
 * in *out_plugin (plugin-owned, valid until the library is closed). Does no
 * registration: the host checks versions first, then calls `load`. Runs
 * once per process for each loaded copy of the library. Returning NULL
 * without setting *out_plugin is a failure too (for when even the host
 * table is unusable).
 * Returns NULL on success or an error (e.g. "this plugin needs ABI 1.3").
 * Since: 1.0. */
typedef sy_error_t* (*sy_plugin_init_fn)(const sy_host_api_t* host,
                                         const sy_plugin_api_t** out_plugin);

SY_PLUGIN_EXPORT sy_error_t* sy_plugin_init(
    const sy_host_api_t* host, const sy_plugin_api_t** out_plugin);

#ifdef __cplusplus
}  /* extern "C" */

/* Each struct is append-only: these pin its last field. */
static_assert(SY_STRUCT_SIZE(sy_host_api_t, kernel_workspace) ==
                  sizeof(sy_host_api_t), "sy_host_api_t 1.1");
static_assert(SY_STRUCT_SIZE(sy_plugin_api_t, options) ==
                  sizeof(sy_plugin_api_t), "sy_plugin_api_t 1.1");
#endif

#endif  /* SWITCHYARD_PLUGIN_ENTRY_H_ */
